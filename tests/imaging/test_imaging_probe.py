"""probe_image / sniff_media_type on real files: what import accepts and what it rejects."""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from annotator.imaging.probe import ImageDecodeError, ImageInfo, probe_image, sniff_media_type


def test_ct_small_is_probed_as_single_frame_dicom(dicom_bytes: Callable[[str], bytes]) -> None:
    info = probe_image(dicom_bytes("CT_small.dcm"), name="ct.dcm")
    assert info == ImageInfo("application/dicom", 128, 128, 1, True, "MONOCHROME2")


def test_multiframe_dicom_reports_its_frame_count(dicom_bytes: Callable[[str], bytes]) -> None:
    info = probe_image(dicom_bytes("examples_ybr_color.dcm"), name="us.dcm")
    assert (info.frames, info.width, info.height) == (30, 320, 240)
    assert info.photometric == "YBR_FULL_422"


@pytest.mark.parametrize("name", ["MR_small_RLE.dcm", "MR_small_jp2klossless.dcm"])
def test_compressed_transfer_syntaxes_probe(dicom_bytes: Callable[[str], bytes], name: str) -> None:
    assert probe_image(dicom_bytes(name), name=name).width == 64


def test_headerless_dicom_is_sniffed(dicom_bytes: Callable[[str], bytes]) -> None:
    data = dicom_bytes("ExplVR_LitEndNoMeta.dcm")
    assert data[128:132] != b"DICM"
    assert sniff_media_type(data) == "application/dicom"


def test_png_and_jpeg_are_sniffed_and_sized(gradient_png: bytes) -> None:
    assert probe_image(gradient_png, name="g.png") == ImageInfo("image/png", 64, 48, 1, False, None)
    buffer = io.BytesIO()
    Image.new("RGB", (20, 10), (200, 10, 10)).save(buffer, format="JPEG")
    info = probe_image(buffer.getvalue(), name="r.jpg")
    assert (info.media_type, info.width, info.height) == ("image/jpeg", 20, 10)


def test_random_bytes_are_not_an_image() -> None:
    data = np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8).tobytes()
    assert sniff_media_type(data) is None
    with pytest.raises(ImageDecodeError) as caught:
        probe_image(data, name="noise.bin")
    assert caught.value.name == "noise.bin"
    assert caught.value.reason == "not a PNG, JPEG or DICOM file"
    assert str(caught.value) == "noise.bin: not a PNG, JPEG or DICOM file"


def test_truncated_png_is_rejected(gradient_png: bytes) -> None:
    with pytest.raises(ImageDecodeError, match="truncated PNG"):
        probe_image(gradient_png[: len(gradient_png) // 2], name="cut.png")


def test_dicom_without_pixel_data_is_rejected(dicom_bytes: Callable[[str], bytes]) -> None:
    with pytest.raises(ImageDecodeError) as caught:
        probe_image(dicom_bytes("rtplan.dcm"), name="plan.dcm")
    assert caught.value.reason == "DICOM has no pixel data"


def test_truncated_dicom_pixel_data_is_rejected(dicom_bytes: Callable[[str], bytes]) -> None:
    with pytest.raises(ImageDecodeError, match="pixel data is truncated"):
        probe_image(dicom_bytes("MR_truncated.dcm"), name="mr.dcm")


def test_corrupt_compressed_pixel_data_names_the_transfer_syntax(
    edited_dicom: Callable[..., bytes],
) -> None:
    from pydicom.encaps import encapsulate

    junk = encapsulate([b"\x01\x02\x03\x04" * 16])
    with pytest.raises(ImageDecodeError) as caught:
        probe_image(edited_dicom("MR_small_RLE.dcm", PixelData=junk), name="rle.dcm")
    assert caught.value.reason.startswith("cannot decode transfer syntax RLE Lossless: ")
    with pytest.raises(ImageDecodeError) as caught:
        probe_image(edited_dicom("MR_small_jp2klossless.dcm", PixelData=junk), name="j2k.dcm")
    reason = caught.value.reason
    assert reason.startswith("cannot decode transfer syntax JPEG 2000 Image Compression")
    assert " at 0x" not in reason  # no object reprs in a message meant for people


def test_transfer_syntax_without_a_decoder_is_a_reason(
    dicom_bytes: Callable[[str], bytes],
) -> None:
    from pydicom.pixels.decoders import JPEGLSLosslessDecoder

    data = dicom_bytes("MR_small_jpeg_ls_lossless.dcm")
    if JPEGLSLosslessDecoder.is_available:
        assert probe_image(data, name="ls.dcm").width == 64
        return
    with pytest.raises(ImageDecodeError) as caught:
        probe_image(data, name="ls.dcm")
    assert caught.value.reason == (
        "cannot decode transfer syntax JPEG-LS Lossless Image Compression: "
        "no decoder installed for it"
    )


@pytest.mark.filterwarnings("ignore:Invalid value for VR IS")
def test_malformed_frame_count_is_a_reason_not_a_traceback(
    dicom_bytes: Callable[[str], bytes],
) -> None:
    with pytest.raises(ImageDecodeError, match="NumberOfFrames '1A'"):
        probe_image(dicom_bytes("badVR.dcm"), name="bad.dcm")


def test_empty_file_is_rejected() -> None:
    with pytest.raises(ImageDecodeError, match="empty file"):
        probe_image(b"", name="empty.png")


def test_grey_16bit_png_probes(encode_png: Callable[..., bytes]) -> None:
    data = encode_png(np.full((5, 7), 4000, dtype=np.uint16))
    assert probe_image(data, name="deep.png").width == 7
