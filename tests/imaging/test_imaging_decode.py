"""decode_frame on real DICOM and PNG: values before any 8-bit step, frames, colour, errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pydicom
import pytest

from annotator.imaging import _dicom
from annotator.imaging.decode import decode_frame
from annotator.imaging.probe import ImageDecodeError


def test_ct_small_pixel_is_in_hounsfield_units(
    dicom_bytes: Callable[[str], bytes], dicom_path: Callable[[str], Path]
) -> None:
    ds = pydicom.dcmread(dicom_path("CT_small.dcm"))
    slope, intercept = float(ds.RescaleSlope), float(ds.RescaleIntercept)
    frame = decode_frame(dicom_bytes("CT_small.dcm"))
    assert frame.array.dtype == np.float32 and frame.array.shape == (128, 128)
    for row, col in ((100, 30), (64, 64), (20, 20)):
        expected = float(ds.pixel_array[row, col]) * slope + intercept
        assert frame.array[row, col] == pytest.approx(expected)
    assert frame.array[100, 30] == 65.0  # soft tissue
    assert frame.array[64, 64] == 904.0  # bone
    assert (float(frame.array.min()), float(frame.array.max())) == (-896.0, 1167.0)
    assert frame.modality == "CT" and not frame.is_color and not frame.invert_default


def test_missing_window_falls_back_to_data_percentiles(
    dicom_bytes: Callable[[str], bytes],
) -> None:
    frame = decode_frame(dicom_bytes("CT_small.dcm"))  # CT_small has no WindowCenter
    low, high = np.percentile(frame.array, [0.5, 99.5])
    assert frame.window_source == "data"
    assert frame.window == pytest.approx(((low + high) / 2, high - low))


def test_file_window_is_used_first_value_when_multivalued(
    dicom_bytes: Callable[[str], bytes],
) -> None:
    assert decode_frame(dicom_bytes("MR_small.dcm")).window == (600.0, 1600.0)
    multi = decode_frame(dicom_bytes("examples_overlay.dcm"))  # [450, 200] / [790, 443]
    assert (multi.window, multi.window_source) == ((450.0, 790.0), "file")


def test_monochrome1_defaults_to_inverted(edited_dicom: Callable[..., bytes]) -> None:
    plain = decode_frame(edited_dicom("MR_small.dcm"))
    inverted = decode_frame(edited_dicom("MR_small.dcm", PhotometricInterpretation="MONOCHROME1"))
    assert not plain.invert_default
    assert inverted.invert_default and inverted.photometric == "MONOCHROME1"
    np.testing.assert_array_equal(inverted.array, plain.array)  # values are not touched


@pytest.mark.parametrize("name", ["examples_ybr_color.dcm", "rtdose.dcm"])
def test_multiframe_frames_are_distinct_and_shaped(
    dicom_bytes: Callable[[str], bytes], name: str
) -> None:
    data = dicom_bytes(name)
    first, later = decode_frame(data, 0), decode_frame(data, 5)
    assert first.frames == later.frames > 5
    assert first.array.shape == later.array.shape
    assert later.frame == 5
    assert not np.array_equal(first.array, later.array)
    with pytest.raises(IndexError, match="out of range"):
        decode_frame(data, first.frames)


def test_ultrasound_frame_shape(dicom_bytes: Callable[[str], bytes]) -> None:
    frame = decode_frame(dicom_bytes("examples_ybr_color.dcm"), 12)
    assert frame.array.shape == (240, 320, 3) and frame.is_color and frame.frames == 30


def test_scrolling_frames_parses_the_file_once(
    dicom_bytes: Callable[[str], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    _dicom.clear_cache()
    calls: list[int] = []
    real_parse = _dicom.parse

    def counting_parse(data: bytes) -> pydicom.Dataset:
        calls.append(len(data))
        return real_parse(data)

    monkeypatch.setattr(_dicom, "parse", counting_parse)
    data = dicom_bytes("examples_ybr_color.dcm")
    for index in range(4):
        decode_frame(data, index)
    decode_frame(bytes(data), 4)  # equal bytes, another object: found by hash
    assert len(calls) == 1


@pytest.mark.parametrize("twin", ["MR_small_RLE.dcm", "MR_small_jp2klossless.dcm"])
def test_lossless_compressed_twins_equal_the_uncompressed_file(
    dicom_bytes: Callable[[str], bytes], twin: str
) -> None:
    reference = decode_frame(dicom_bytes("MR_small.dcm")).array
    np.testing.assert_array_equal(decode_frame(dicom_bytes(twin)).array, reference)


def test_jpeg2000_ct_decodes_with_its_window(dicom_bytes: Callable[[str], bytes]) -> None:
    frame = decode_frame(dicom_bytes("693_J2KI.dcm"))
    assert frame.array.shape == (512, 512)
    assert (frame.window, frame.window_source) == ((40.0, 100.0), "file")


def test_ybr_colour_is_converted_to_rgb(
    dicom_bytes: Callable[[str], bytes], dicom_path: Callable[[str], Path]
) -> None:
    from pydicom.pixels.processing import convert_color_space
    from pydicom.pixels.utils import pixel_array

    ds = pydicom.dcmread(dicom_path("examples_ybr_color.dcm"))
    ybr = pixel_array(ds, index=2, as_rgb=False)
    expected = convert_color_space(ybr, "YBR_FULL", "RGB")
    frame = decode_frame(dicom_bytes("examples_ybr_color.dcm"), 2)
    assert frame.array.dtype == np.uint8
    assert np.abs(frame.array.astype(int) - expected.astype(int)).max() <= 1
    # Raw YBR has chroma near 128; RGB of grey ultrasound has equal-ish channels.
    assert abs(float(ybr[..., 1].mean()) - 128) < 5
    assert abs(float(frame.array[..., 0].mean()) - float(frame.array[..., 1].mean())) < 5


def test_palette_colour_becomes_rgb(dicom_bytes: Callable[[str], bytes]) -> None:
    frame = decode_frame(dicom_bytes("examples_palette.dcm"))
    assert frame.is_color and frame.array.shape == (350, 800, 3)


def test_colour_png_passes_through(encode_png: Callable[..., bytes]) -> None:
    rgb = np.random.default_rng(3).integers(0, 256, size=(9, 11, 3), dtype=np.uint8)
    frame = decode_frame(encode_png(rgb))
    assert frame.is_color and frame.media_type == "image/png"
    np.testing.assert_array_equal(frame.array, rgb)


def test_sixteen_bit_png_keeps_values_above_255(encode_png: Callable[..., bytes]) -> None:
    values = np.array([[0, 300, 4095], [1000, 2000, 65535]], dtype=np.uint16)
    frame = decode_frame(encode_png(values))
    np.testing.assert_array_equal(frame.array, values.astype(np.float32))
    assert frame.window_source == "data" and frame.window[1] > 255


def test_eight_bit_grey_png_is_shown_as_stored(encode_png: Callable[..., bytes]) -> None:
    frame = decode_frame(encode_png(np.array([[0, 128, 255]], dtype=np.uint8)))
    assert (frame.window, frame.window_source) == ((128.0, 256.0), "full_range")


def test_grey_alpha_png_becomes_grey(encode_png: Callable[..., bytes]) -> None:
    la = np.array([[[200, 255], [200, 0]]], dtype=np.uint8)  # opaque and transparent
    frame = decode_frame(encode_png(la))
    assert not frame.is_color
    np.testing.assert_array_equal(frame.array, [[200.0, 0.0]])


def test_headerless_dicom_decodes(
    dicom_bytes: Callable[[str], bytes], dicom_path: Callable[[str], Path]
) -> None:
    from pydicom.filebase import DicomBytesIO
    from pydicom.filewriter import write_dataset

    ds = pydicom.dcmread(dicom_path("MR_small.dcm"))
    buffer = DicomBytesIO()
    buffer.is_little_endian, buffer.is_implicit_VR = True, False
    write_dataset(buffer, ds)  # the bare dataset: no preamble, no "DICM", no file meta
    data = buffer.getvalue()
    assert data[128:132] != b"DICM"
    frame = decode_frame(data)
    np.testing.assert_array_equal(frame.array, decode_frame(dicom_bytes("MR_small.dcm")).array)


def test_broken_inputs_raise_decode_errors(
    gradient_png: bytes, dicom_bytes: Callable[[str], bytes]
) -> None:
    cases = {
        "cut.png": (gradient_png[: len(gradient_png) // 2], "truncated PNG"),
        "noise.bin": (bytes(range(256)) * 8, "not a PNG, JPEG or DICOM file"),
        "plan.dcm": (dicom_bytes("rtplan.dcm"), "DICOM has no pixel data"),
        "short.dcm": (dicom_bytes("MR_truncated.dcm"), "pixel data is truncated"),
    }
    for name, (data, reason) in cases.items():
        with pytest.raises(ImageDecodeError) as caught:
            decode_frame(data, name=name)
        assert caught.value.name == name
        assert caught.value.reason.startswith(reason)
