"""Qt-free pixel pipeline: probe, decode, window, header values, thumbnails, rendering."""

from __future__ import annotations

from annotator.imaging.probe import ImageDecodeError, ImageInfo, probe_image, sniff_media_type

__all__ = ["ImageDecodeError", "ImageInfo", "probe_image", "sniff_media_type"]
