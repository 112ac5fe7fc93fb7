"""render_png: deterministic PNG bytes and an honest account of the settings used."""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from annotator.imaging import _dicom
from annotator.imaging.decode import decode_frame
from annotator.imaging.render import encode_png, render_png
from annotator.imaging.window import apply_window


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def test_render_is_byte_identical_across_calls(dicom_bytes: Callable[[str], bytes]) -> None:
    data = dicom_bytes("MR_small.dcm")
    first, settings = render_png(data)
    _dicom.clear_cache()  # a fresh parse must give the same bytes too
    second, again = render_png(bytes(data))
    assert first == second and settings == again
    assert first.startswith(b"\x89PNG") and b"tIME" not in first and b"tEXt" not in first


def test_settings_name_the_file_window(dicom_bytes: Callable[[str], bytes]) -> None:
    png, settings = render_png(dicom_bytes("MR_small.dcm"))
    assert settings == {
        "frame": 0,
        "frames": 1,
        "center": 600.0,
        "width": 1600.0,
        "invert": False,
        "color": False,
        "window_source": "file",
        "policy": "single frame",
    }
    expected = apply_window(decode_frame(dicom_bytes("MR_small.dcm")).array, 600, 1600)
    np.testing.assert_array_equal(pixels(png), expected)


def test_multiframe_defaults_to_the_middle_frame(dicom_bytes: Callable[[str], bytes]) -> None:
    data = dicom_bytes("examples_ybr_color.dcm")
    png, settings = render_png(data)
    assert (settings["frame"], settings["frames"]) == (15, 30)
    assert "middle frame" in settings["policy"]
    np.testing.assert_array_equal(pixels(png), decode_frame(data, 15).array)


def test_requested_frame_and_window(dicom_bytes: Callable[[str], bytes]) -> None:
    data = dicom_bytes("CT_small.dcm")
    png, settings = render_png(data, frame=0, window=(40.0, 80.0))
    assert (settings["center"], settings["width"], settings["window_source"]) == (
        40.0,
        80.0,
        "requested",
    )
    assert settings["policy"] == "requested frame 0 of 1"
    assert pixels(png)[100, 30] == 210  # 65 HU in a brain window
    with pytest.raises(IndexError):
        render_png(data, frame=1)


def test_monochrome1_render_is_inverted(edited_dicom: Callable[..., bytes]) -> None:
    plain, _ = render_png(edited_dicom("MR_small.dcm"))
    png, settings = render_png(
        edited_dicom("MR_small.dcm", PhotometricInterpretation="MONOCHROME1")
    )
    assert settings["invert"] is True
    np.testing.assert_array_equal(pixels(png), 255 - pixels(plain))


def test_encode_png_refuses_wide_arrays() -> None:
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2), dtype=np.uint16))
