"""apply_window follows DICOM's linear window; presets are data."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from annotator.imaging.decode import decode_frame
from annotator.imaging.window import CT_PRESETS, apply_window, full_range_window, preset


def dicom_linear(x: float, center: float, width: float) -> int:
    """PS3.3 C.11.2.1.2.1 written out scalar by scalar, rounded half up."""
    if x <= center - 0.5 - (width - 1) / 2:
        return 0
    if x > center - 0.5 + (width - 1) / 2:
        return 255
    return math.floor(((x - (center - 0.5)) / (width - 1) + 0.5) * 255 + 0.5)


def test_ct_small_pixel_after_brain_and_bone_windows(
    dicom_bytes: Callable[[str], bytes],
) -> None:
    hu = decode_frame(dicom_bytes("CT_small.dcm")).array
    brain = apply_window(hu, 40, 80)
    bone = apply_window(hu, 600, 2800)
    assert brain.dtype == np.uint8 and brain.shape == hu.shape
    # 65 HU: ((65 - 39.5) / 79 + 0.5) * 255 = 209.8 -> 210
    assert brain[100, 30] == dicom_linear(65.0, 40, 80) == 210
    # 904 HU: ((904 - 599.5) / 2799 + 0.5) * 255 = 155.2 -> 155
    assert bone[64, 64] == dicom_linear(904.0, 600, 2800) == 155
    assert brain[20, 20] == 0  # -762 HU (air/fat) is black in a brain window
    assert brain[64, 64] == 255  # bone is white in a brain window


def test_every_value_matches_the_standard_formula() -> None:
    values = np.linspace(-50.0, 130.0, 721)
    out = apply_window(values, 40, 80)
    assert [int(v) for v in out] == [dicom_linear(float(x), 40, 80) for x in values]


def test_window_edges() -> None:
    out = apply_window(np.array([-1.0, 0.0, 0.01, 39.5, 79.0, 79.01]), 40, 80)
    assert out.tolist() == [0, 0, 0, 128, 255, 255]


def test_width_one_is_a_threshold_and_smaller_widths_are_clamped() -> None:
    x = np.array([9.0, 9.5, 10.0])
    assert apply_window(x, 10, 1).tolist() == [0, 0, 255]
    assert apply_window(x, 10, 0).tolist() == [0, 0, 255]


def test_invert_flips_display_values() -> None:
    x = np.array([0.0, 40.0, 80.0])
    expected = [255 - dicom_linear(float(v), 40, 80) for v in x]
    assert apply_window(x, 40, 80, invert=True).tolist() == expected == [255, 126, 0]


def test_uint8_colour_passes_through_and_can_invert() -> None:
    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10
    np.testing.assert_array_equal(apply_window(rgb, 40, 80), rgb)
    np.testing.assert_array_equal(apply_window(rgb, 40, 80, invert=True), 255 - rgb)
    assert apply_window(rgb, 40, 80) is not rgb  # callers may modify the result


def test_sixteen_bit_colour_is_scaled_by_its_full_range() -> None:
    rgb = np.array([[[0, 32768, 65535]]], dtype=np.uint16)
    assert apply_window(rgb, *full_range_window(16)).tolist() == [[[0, 128, 255]]]


def test_ct_presets_are_named_data() -> None:
    table = {p.key: (p.center, p.width) for p in CT_PRESETS}
    assert table == {
        "brain": (40, 80),
        "subdural": (75, 215),
        "stroke": (40, 40),
        "bone": (600, 2800),
        "soft_tissue": (50, 350),
        "lung": (-600, 1500),
    }
    assert preset("lung").label == "Lung"
    with pytest.raises(KeyError, match="brain"):
        preset("liver")


def test_window_at_screen_size_matches_the_exact_window_on_the_same_pixels() -> None:
    from annotator.imaging.window import prepare_for_screen, window_lut

    rng = np.random.default_rng(3)
    pixels = rng.integers(-1024, 3072, (3072, 2048)).astype(np.float32)
    prepared = prepare_for_screen(pixels, (1280, 800))
    assert prepared.step == 4  # 3072 / 800 rounded up
    assert prepared.indices.shape == (768, 512)
    for center, width, invert in ((40.0, 400.0, False), (600.0, 2800.0, True), (0.0, 1.0, False)):
        expected = apply_window(pixels[::4, ::4], center, width, invert=invert)
        assert np.array_equal(window_lut(prepared, center, width, invert=invert), expected)


def test_window_at_screen_size_of_wide_float_data_is_within_one_grey_level() -> None:
    from annotator.imaging.window import prepare_for_screen, window_lut

    pixels = np.linspace(-5e5, 5e5, 300 * 200, dtype=np.float64).reshape(300, 200)
    prepared = prepare_for_screen(pixels, (1280, 800))
    assert prepared.step == 1
    got = window_lut(prepared, 0.0, 2e5).astype(int)
    assert np.abs(got - apply_window(pixels, 0.0, 2e5).astype(int)).max() <= 1
