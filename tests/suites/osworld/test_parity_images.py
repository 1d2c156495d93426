"""troupe's picture metrics agree with OSWorld's own (metrics/gimp.py, vlc.py's compare_images, imported
from ../shared/osworld/reference with Pillow, numpy, OpenCV and scikit-image for tests only) on PNG, JPEG
and GIF files built here to sit on each function's edges: no file, an empty or unreadable one, pictures
of other sizes, in RGBA, L, LA and palette modes, under 7 pixels on a side, similarities just above and
just below each threshold (found by bisection on an amount of added noise), the quirks of OSWorld's
loops and precedence. Scores that are SSIMs agree to 1e-9 (troupe sums its windows in another order
than scipy's filter); pass marks agree exactly. Prints the agreement per function."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance

from bench.formats.ssim import grey_ssim_at_smaller_size, ssim_channels
from bench.suites.osworld import metrics

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, gimp_images, report_parity, vlc_media
from tests.task_files import encoded, picture

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
TOLERANCE = 1e-9
MARGIN = 1e-7
"""How far from a threshold the "just above" and "just below" cases sit: far above the two SSIMs'
rounding differences (~1e-15), far below any real change."""

PHOTO = picture()
OTHER = picture(seed=5).transpose(Image.Transpose.ROTATE_180)
PNG = encoded(PHOTO)
JPEG = encoded(PHOTO, "JPEG", quality=90)
GARBAGE = b"this is not a picture"
TRUNCATED = PNG[:len(PNG) // 2]
NOISE = np.random.default_rng(3).standard_normal((*PHOTO.size[::-1], 3))


def noisy(image: Image.Image, amount: float) -> Image.Image:
    pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
    return Image.fromarray(np.clip(pixels + amount * NOISE[:image.height, :image.width], 0, 255).astype(np.uint8))


def structure(first: Image.Image, second: Image.Image) -> float:
    return ssim_channels(np.array(first.convert("RGB")), np.array(second.convert("RGB")))


def near(threshold: float, above: bool, similarity: Callable[[Image.Image], float],
         start: Image.Image = PHOTO) -> Image.Image:
    """`start` with as much noise added as brings `similarity` to just above (or below) `threshold`."""
    low, high = 0.0, 255.0
    for _ in range(60):
        middle = (low + high) / 2
        if similarity(noisy(start, middle)) >= threshold:
            low = middle
        else:
            high = middle
    found = noisy(start, low if above else high)
    assert abs(similarity(found) - threshold) < 0.01
    return found


def at(threshold: float, above: bool, compare: Callable[[Image.Image], float]) -> bytes:
    return encoded(near(threshold, above, compare))


def brighter(image: Image.Image, factor: float) -> Image.Image:
    return ImageEnhance.Brightness(image).enhance(factor)


def canvas(size: tuple[int, int], box: tuple[int, int, int, int] | None, mode: str = "RGBA") -> Image.Image:
    """A transparent `size` picture with PHOTO squeezed into `box` (none: all transparent)."""
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    if box is not None:
        image.paste(PHOTO.resize((box[2] - box[0], box[3] - box[1])).convert("RGBA"), box[:2])
    return image.convert(mode)


def with_transparent_colour(image: Image.Image) -> bytes:
    palette = image.convert("RGB").quantize(16)
    return encoded(palette, transparency=0)


def compare_images_cases() -> list[Case]:
    noisy_photo = noisy(PHOTO, 40)
    similarity = grey_ssim_at_smaller_size(noisy_photo, PHOTO)
    base = similarity - 0.01
    return [
        C(FILE, PNG, FILE, PNG), C(FILE, encoded(noisy_photo), FILE, PNG), C(FILE, JPEG, FILE, PNG),
        C(FILE, encoded(picture(40, 60)), FILE, encoded(picture(90, 30))),  # the narrower wins, though taller
        C(FILE, encoded(PHOTO.convert("RGBA")), FILE, PNG), C(FILE, encoded(PHOTO.convert("L")), FILE, PNG),
        C(FILE, encoded(PHOTO.quantize(16)), FILE, PNG), C(FILE, encoded(PHOTO, "GIF"), FILE, encoded(OTHER, "GIF")),
        C(None, FILE, PNG), C(FILE, PNG, None), C(FILE, b"", FILE, PNG), C(FILE, GARBAGE, FILE, PNG),
        C(FILE, TRUNCATED, FILE, PNG), C(FILE, encoded(picture(6, 40)), FILE, PNG),
        C(FILE, encoded(noisy_photo), FILE, PNG, reference_base_result=0.11),
        C(FILE, encoded(noisy_photo), FILE, PNG, reference_base_result=base + MARGIN),
        C(FILE, encoded(noisy_photo), FILE, PNG, reference_base_result=base - MARGIN),
        C(FILE, PNG, FILE, PNG, reference_base_result=0.54),
        C(FILE, encoded(OTHER), FILE, PNG, reference_base_result=0.54),
    ]


def structure_sim_cases() -> list[Case]:
    return [
        C(FILE, PNG, FILE, PNG), C(FILE, JPEG, FILE, PNG), C(FILE, encoded(OTHER), FILE, PNG),
        C(FILE, at(0.9, True, lambda i: structure(i, PHOTO)), FILE, PNG),
        C(FILE, at(0.9, False, lambda i: structure(i, PHOTO)), FILE, PNG),
        C(FILE, encoded(picture(64, 47)), FILE, PNG), C(None, FILE, PNG), C(FILE, PNG, None),
        C(FILE, GARBAGE, FILE, PNG), C(FILE, TRUNCATED, FILE, PNG),
        C(FILE, encoded(picture(6, 6)), FILE, encoded(picture(6, 6))),
        C(FILE, encoded(PHOTO.convert("RGBA")), FILE, PNG), C(FILE, encoded(PHOTO.convert("L")), FILE, PNG),
        C(FILE, encoded(PHOTO.quantize(64)), FILE, PNG), C(FILE, encoded(canvas((64, 48), (8, 6, 56, 42))), FILE, PNG),
    ]


def structure_sim_resized_cases() -> list[Case]:
    return [
        C(FILE, encoded(canvas((90, 70), (10, 12, 74, 60))), FILE, PNG),
        C(FILE, encoded(canvas((90, 70), (10, 12, 42, 36))), FILE, PNG),
        C(FILE, encoded(canvas((90, 70), None)), FILE, PNG),
        C(FILE, encoded(PHOTO.resize((32, 24))), FILE, PNG), C(FILE, encoded(OTHER.resize((32, 24))), FILE, PNG),
        C(FILE, encoded(canvas((90, 70), (10, 12, 74, 60), "LA")), FILE, PNG),
        C(FILE, with_transparent_colour(PHOTO.resize((96, 72))), FILE, PNG),
        C(FILE, encoded(PHOTO.resize((128, 96))), FILE, encoded(PHOTO.convert("L"))),
        C(FILE, JPEG, FILE, PNG), C(None, FILE, PNG), C(FILE, GARBAGE, FILE, PNG), C(FILE, PNG, FILE, GARBAGE),
        C(FILE, encoded(canvas((90, 70), (40, 30, 44, 34))), FILE, PNG),  # content under 7 pixels: resized up
    ]


def with_threshold_cases() -> list[Case]:
    noisy_photo = noisy(PHOTO, 30)
    similarity = structure(noisy_photo, PHOTO)
    small = [(5, 5), (9, 4), (20, 6), (2, 2), (10, 1), (7, 7)]
    return [
        C(FILE, PNG, FILE, PNG), C(FILE, encoded(PHOTO.resize((80, 60))), FILE, PNG),
        C(FILE, encoded(noisy_photo), FILE, PNG, ssim_threshold=similarity + MARGIN),
        C(FILE, encoded(noisy_photo), FILE, PNG, ssim_threshold=similarity - MARGIN),
        C(FILE, encoded(noisy_photo), FILE, PNG), C(FILE, encoded(OTHER), FILE, PNG, ssim_threshold=0.1),
        *(C(FILE, encoded(picture(*size, seed=1)), FILE, encoded(picture(*size, seed=2)), ssim_threshold=0.2)
          for size in small),
        C(FILE, encoded(picture(3, 3)), FILE, encoded(picture(3, 3)), ssim_threshold=0.99),
        C(FILE, GARBAGE, FILE, PNG), C(None, FILE, PNG), C(FILE, TRUNCATED, FILE, PNG),
        C(FILE, encoded(canvas((64, 48), (0, 0, 64, 48))), FILE, PNG, ssim_threshold=0.5),
    ]


def file_exists_cases() -> list[Case]:
    return [
        C(FILE, JPEG, FILE, JPEG), C(FILE, JPEG, FILE, PNG), C(FILE, encoded(OTHER), FILE, PNG),
        C(FILE, encoded(PHOTO.resize((60, 48))), FILE, PNG),
        C(FILE, at(0.9, True, lambda i: structure(i, PHOTO)), FILE, PNG),
        C(FILE, at(0.9, False, lambda i: structure(i, PHOTO)), FILE, PNG),
        C(None, FILE, PNG), C(FILE, PNG, None), C(FILE, GARBAGE, FILE, PNG), C(FILE, PNG, FILE, b""),
        C(FILE, encoded(picture(6, 30)), FILE, encoded(picture(6, 30))),
        C(FILE, encoded(PHOTO.convert("LA")), FILE, PNG),
    ]


MIRRORED = PHOTO.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def mirror_cases() -> list[Case]:
    def mirrored_similarity(image: Image.Image) -> float:
        return structure(image.transpose(Image.Transpose.FLIP_LEFT_RIGHT), PHOTO)
    symmetric = Image.new("RGB", (20, 20), (90, 90, 90))
    ImageDraw.Draw(symmetric).rectangle((5, 5, 14, 14), fill=(200, 20, 20))
    return [
        C(FILE, encoded(MIRRORED), FILE, PNG), C(FILE, PNG, FILE, PNG), C(FILE, encoded(MIRRORED, "JPEG"), FILE, PNG),
        C(FILE, encoded(near(0.99, True, mirrored_similarity, MIRRORED)), FILE, PNG),
        C(FILE, encoded(near(0.99, False, mirrored_similarity, MIRRORED)), FILE, PNG),
        C(FILE, encoded(symmetric), FILE, encoded(symmetric)), C(FILE, encoded(MIRRORED.resize((60, 40))), FILE, PNG),
        C(FILE, encoded(MIRRORED.convert("RGBA")), FILE, PNG), C(None, FILE, PNG), C(FILE, PNG, None),
        C(FILE, GARBAGE, FILE, PNG), C(FILE, encoded(PHOTO.transpose(Image.Transpose.FLIP_TOP_BOTTOM)), FILE, PNG),
    ]


def palette_cases() -> list[Case]:
    return [
        C(FILE, encoded(PHOTO.quantize(256)), FILE, PNG), C(FILE, PNG, FILE, PNG),
        C(FILE, encoded(PHOTO.quantize(2)), FILE, PNG), C(FILE, encoded(OTHER.quantize(256)), FILE, PNG),
        C(FILE, encoded(PHOTO.resize((32, 24)).quantize(64)), FILE, PNG),
        C(FILE, with_transparent_colour(PHOTO), FILE, PNG), C(FILE, encoded(PHOTO, "GIF"), FILE, PNG),
        C(FILE, encoded(PHOTO.quantize(256)), FILE, JPEG), C(None, FILE, PNG), C(FILE, PNG, None),
        C(FILE, b"", FILE, PNG),  # OSWorld retries an empty file for 1 s, then scores 0
        C(FILE, GARBAGE, FILE, PNG),  # ... and one Pillow cannot identify
        C(FILE, encoded(picture(6, 6).quantize(8)), FILE, encoded(picture(6, 6))),
    ]


def mean_squared(first: Image.Image, second: Image.Image) -> float:
    """OSWorld's structure_check_by_mse figure for two pictures of one size, each at brightness 128."""
    def normal(image: Image.Image) -> Image.Image:
        factor = 128 / np.mean(np.asarray(image.convert("L"), dtype=np.float64))
        return image.point(lambda value: min(255, max(0, int(value * factor)))).convert("RGB")
    return float(np.mean((np.array(normal(first), dtype=np.float32) / 255
                          - np.array(normal(second), dtype=np.float32) / 255) ** 2))


def brightness_cases() -> list[Case]:
    darker = brighter(PHOTO, 0.7)
    changed = noisy(darker, 60)
    figure = mean_squared(changed, PHOTO)
    return [
        C(FILE, encoded(darker), FILE, PNG), C(FILE, encoded(brighter(PHOTO, 1.3)), FILE, PNG),
        C(FILE, PNG, FILE, PNG), C(FILE, encoded(brighter(OTHER, 0.7)), FILE, PNG),
        C(FILE, encoded(changed), FILE, PNG), C(FILE, encoded(changed), FILE, PNG, threshold=0.15),
        C(FILE, encoded(changed), FILE, PNG, threshold=float(np.nextafter(np.float32(figure), np.float32(1)))),
        C(FILE, encoded(changed), FILE, PNG, threshold=float(np.nextafter(np.float32(figure), np.float32(0)))),
        C(FILE, encoded(Image.new("RGB", (64, 48))), FILE, PNG),  # all black: OSWorld divides by zero
        C(FILE, encoded(darker.resize((32, 24))), FILE, PNG), C(FILE, encoded(darker.convert("RGBA")), FILE, PNG),
        C(FILE, encoded(darker.convert("L")), FILE, encoded(PHOTO.convert("L"))),
        C(FILE, encoded(darker.quantize(64)), FILE, PNG), C(FILE, encoded(darker, "JPEG"), FILE, JPEG),
        C(None, FILE, PNG), C(FILE, PNG, None), C(FILE, GARBAGE, FILE, PNG),
        C(FILE, encoded(darker), FILE, PNG, other=1),  # an option OSWorld's function does not take
    ]


def saturation_cases() -> list[Case]:
    def vivid(image: Image.Image, factor: float) -> Image.Image:
        return ImageEnhance.Color(image).enhance(factor)
    return [
        C(FILE, encoded(vivid(PHOTO, 1.2)), FILE, PNG), C(FILE, encoded(vivid(PHOTO, 1.5)), FILE, PNG),
        C(FILE, encoded(vivid(PHOTO, 0.5)), FILE, PNG), C(FILE, PNG, FILE, PNG),
        C(FILE, encoded(PHOTO.convert("L")), FILE, PNG),
        C(FILE, encoded(vivid(PHOTO, 1.2).resize((60, 48))), FILE, PNG),
        C(FILE, encoded(vivid(OTHER, 1.2)), FILE, PNG), C(FILE, encoded(vivid(PHOTO, 3.0)), FILE, PNG),
        C(FILE, encoded(vivid(PHOTO, 1.2).convert("RGBA")), FILE, PNG), C(FILE, encoded(vivid(PHOTO, 1.2)), FILE, JPEG),
        C(None, FILE, PNG), C(FILE, PNG, None), C(FILE, GARBAGE, FILE, PNG), C(FILE, PNG, FILE, b""),
    ]


def contrast_cases() -> list[Case]:
    def stronger(image: Image.Image, factor: float) -> Image.Image:
        return ImageEnhance.Contrast(image).enhance(factor)
    return [
        C(FILE, encoded(stronger(PHOTO, 1.5)), FILE, PNG), C(FILE, encoded(stronger(PHOTO, 0.6)), FILE, PNG),
        C(FILE, PNG, FILE, PNG), C(FILE, encoded(stronger(OTHER, 1.5)), FILE, PNG),
        C(FILE, at(0.65, True, lambda i: structure(i, PHOTO)), FILE, PNG),  # noise: more spread, less alike
        C(FILE, at(0.65, False, lambda i: structure(i, PHOTO)), FILE, PNG),
        C(FILE, encoded(stronger(PHOTO, 1.5).quantize(64)), FILE, PNG),
        C(FILE, encoded(stronger(PHOTO, 1.5).convert("RGBA")), FILE, PNG),
        C(FILE, encoded(stronger(PHOTO, 1.5).resize((60, 48))), FILE, PNG),
        C(None, FILE, PNG), C(FILE, PNG, None), C(FILE, GARBAGE, FILE, PNG),
    ]


def blocks(*boxes: tuple[tuple[int, int, int, int], tuple[int, ...]], size: int = 100, mode: str = "RGB",
           background: tuple[int, ...] = (255, 255, 255), dot: tuple[int, ...] | None = (255, 0, 255)) -> bytes:
    """`boxes` painted on `background`, and a one-pixel `dot` in the last corner: OSWorld takes the second
    least common colour for the triangle, so with the dot that is the rarest box's."""
    image = Image.new(mode, (size, size), background)
    for box, colour in boxes:
        ImageDraw.Draw(image).rectangle(box, fill=colour)
    if dot is not None:
        image.putpixel((size - 1, size - 1), dot)
    return encoded(image)


YELLOW = (250, 220, 0)


def triangle_cases() -> list[Case]:
    triangle = Image.new("RGB", (120, 90), (255, 255, 255))
    ImageDraw.Draw(triangle).polygon([(50, 35), (70, 35), (60, 52)], fill=YELLOW)
    aside = Image.new("RGB", (120, 90), (255, 255, 255))
    ImageDraw.Draw(aside).polygon([(5, 5), (25, 5), (15, 22)], fill=YELLOW)
    for image in (triangle, aside):
        image.putpixel((119, 89), (255, 0, 255))
    return [
        C(FILE, encoded(triangle)), C(FILE, encoded(aside)),
        C(FILE, blocks(((41, 41, 50, 50), YELLOW))),  # centroid 4.5 pixels from the centre: within 5%
        C(FILE, blocks(((40, 40, 49, 49), YELLOW))),  # 5.5 pixels away
        C(FILE, blocks(((40, 45, 50, 54), YELLOW))),  # exactly 5 pixels away on one axis: not within
        C(FILE, blocks(((45, 45, 54, 54), YELLOW), ((0, 0, 9, 9), (0, 0, 200)))),  # two colours of one count
        C(FILE, blocks(((45, 45, 54, 54), YELLOW), ((0, 0, 9, 10), (0, 0, 200)))),
        C(FILE, blocks(((41, 41, 50, 50), YELLOW), dot=None)),  # two colours: the background is "the triangle"
        C(FILE, blocks(dot=None)), C(FILE, blocks(((45, 45, 54, 54), (90,)), mode="L", background=(255,), dot=(0,))),
        C(FILE, blocks(((45, 45, 54, 54), (*YELLOW, 255)), mode="RGBA", background=(0, 0, 0, 0), dot=(1, 1, 1, 1))),
        C(FILE, encoded(triangle, "JPEG")), C(None), C(FILE, GARBAGE),
    ]


def dark(x: int, width: int = 100, value: int = 20, mode: str = "RGB") -> bytes:
    image = Image.new("L", (width, 40), 240)
    image.putpixel((x, 17), value)
    return encoded(image.convert(mode))


def textbox_cases() -> list[Case]:
    text = Image.new("RGB", (200, 60), (250, 160, 40))
    ImageDraw.Draw(text).text((3, 20), "Hello", fill=(0, 0, 0))
    moved = Image.new("RGB", (200, 60), (250, 160, 40))
    ImageDraw.Draw(moved).text((80, 20), "Hello", fill=(0, 0, 0))
    return [
        C(FILE, encoded(text)), C(FILE, encoded(moved)), C(FILE, dark(4)), C(FILE, dark(5)),
        C(FILE, dark(1, width=30)), C(FILE, dark(2, width=30)), C(FILE, dark(3, value=127)),
        C(FILE, dark(3, value=128)), C(FILE, encoded(Image.new("RGB", (50, 20), (255, 255, 255)))),
        C(FILE, dark(2, mode="RGBA")), C(FILE, dark(2, mode="L")), C(FILE, dark(2, mode="P")),
        C(None), C(FILE, GARBAGE),
    ]


GREEN, RED, BLACK, WHITE = (20, 200, 30), (200, 20, 30), (0, 0, 0), (255, 255, 255)


def scene(width: int, height: int, background: tuple[int, ...], thing: tuple[int, ...] = BLACK,
          mode: str = "RGB", spots: dict[tuple[int, int], tuple[int, ...]] | None = None) -> bytes:
    """A picture with a `thing` in its middle on `background`, and single pixels `spots` (x, y) painted."""
    image = Image.new("RGB", (width, height), background[:3])
    ImageDraw.Draw(image).rectangle((width // 3, height // 3, 2 * width // 3, 2 * height // 3), fill=thing[:3])
    for (x, y), colour in (spots or {}).items():
        image.putpixel((x, y), colour)
    return encoded(image.convert(mode))


def green_cases() -> list[Case]:
    target = scene(9, 9, WHITE)
    return [
        C(FILE, scene(9, 9, GREEN), FILE, target), C(FILE, scene(9, 9, GREEN, thing=RED), FILE, target),
        C(FILE, scene(9, 9, GREEN, spots={(8, 0): RED}), FILE, target),
        C(FILE, scene(9, 9, GREEN, spots={(0, 8): (20, 20, 20)}), FILE, target),
        C(FILE, scene(12, 8, GREEN), FILE, scene(12, 8, WHITE)),  # wide: the loop runs off the rows
        C(FILE, scene(12, 8, GREEN, spots={(3, 5): RED}), FILE, scene(12, 8, WHITE)),  # ... after a red pixel
        C(FILE, scene(8, 12, GREEN), FILE, scene(8, 12, WHITE)),  # tall: off the columns of the first row
        C(FILE, scene(8, 12, GREEN, spots={(5, 0): RED}), FILE, scene(8, 12, WHITE)),  # read before it runs off
        C(FILE, scene(8, 12, GREEN, spots={(0, 5): RED}), FILE, scene(8, 12, WHITE)),
        C(FILE, scene(6, 6, GREEN), FILE, target),  # the result is smaller
        C(FILE, scene(6, 6, GREEN, spots={(2, 0): RED}), FILE, target),
        C(FILE, scene(9, 9, GREEN), FILE, scene(9, 9, WHITE, mode="L")),
        C(FILE, scene(9, 9, GREEN, mode="L"), FILE, target),
        C(FILE, scene(9, 9, GREEN, mode="L"), FILE, scene(9, 9, BLACK)),  # nothing to look at: 1
        C(FILE, scene(9, 9, GREEN), FILE, scene(9, 9, WHITE, mode="LA")),
        C(FILE, scene(9, 9, GREEN, mode="RGBA"), FILE, scene(9, 9, WHITE, mode="RGBA")),
        C(FILE, scene(9, 9, GREEN, mode="LA"), FILE, target),
        C(None, FILE, target), C(FILE, target, None), C(FILE, GARBAGE, FILE, target),
    ]


def size_cases() -> list[Case]:
    photo = encoded(PHOTO.resize((30, 20)))
    content = encoded(canvas((30, 20), (4, 6, 14, 11)))
    return [
        C(FILE, photo, {"height": 20}), C(FILE, photo, {"height": 21}), C(FILE, photo, {"height": 20, "width": 30}),
        C(FILE, photo, {"width": 31}), C(FILE, photo, {}), C(FILE, content, {"height": 5, "ignore_transparent": True}),
        C(FILE, content, {"height": 20, "ignore_transparent": True}), C(FILE, content, {"height": 20}),
        C(FILE, encoded(canvas((30, 20), None)), {"height": 0, "width": 0, "ignore_transparent": True}),
        C(FILE, with_transparent_colour(PHOTO.resize((30, 20))), {"height": 20}),  # and/or precedence: cropped
        C(FILE, encoded(canvas((30, 20), (4, 6, 14, 11), "LA")), {"width": 10, "ignore_transparent": True}),
        C(FILE, encoded(PHOTO.resize((30, 20)), "JPEG"), {"height": 20, "ignore_transparent": True}),
        C(FILE, photo, None), C(FILE, photo, "height"), C(FILE, photo, ["height", 20]),
        C(None, {"height": 20}), C(FILE, GARBAGE, {"height": 20}),
    ]


def file_size_cases() -> list[Case]:
    return [
        C(FILE, PNG, {"max_size": 600000}), C(FILE, PNG, {"max_size": len(PNG)}),
        C(FILE, PNG, {"max_size": len(PNG) + 1}), C(FILE, PNG, {"max_size": len(PNG) + 0.5}),
        C(FILE, b"", {"max_size": 1}), C(None, {"max_size": 600000}), C(FILE, PNG, {}),
        C(FILE, PNG, {"max_size": "600000"}), C(FILE, PNG, None), C(FILE, PNG, [600000]),
    ]


@functools.cache
def gimp_reference():
    return gimp_images()


def gimp_function(name: str) -> Callable:
    return getattr(gimp_reference(), name)


CASES: dict[str, tuple[Callable[[], Callable], Callable[[], list[Case]]]] = {
    "compare_images": (lambda: vlc_media().compare_images, compare_images_cases),
    "check_structure_sim": (lambda: gimp_function("check_structure_sim"), structure_sim_cases),
    "check_structure_sim_resized": (lambda: gimp_function("check_structure_sim_resized"), structure_sim_resized_cases),
    "check_structure_sim_with_threshold": (lambda: gimp_function("check_structure_sim_with_threshold"),
                                           with_threshold_cases),
    "check_file_exists_and_structure_sim": (lambda: gimp_function("check_file_exists_and_structure_sim"),
                                            file_exists_cases),
    "check_image_mirror": (lambda: gimp_function("check_image_mirror"), mirror_cases),
    "check_palette_and_structure_sim": (lambda: gimp_function("check_palette_and_structure_sim"), palette_cases),
    "check_brightness_decrease_and_structure_sim": (
        lambda: gimp_function("check_brightness_decrease_and_structure_sim"), brightness_cases),
    "check_saturation_increase_and_structure_sim": (
        lambda: gimp_function("check_saturation_increase_and_structure_sim"), saturation_cases),
    "check_contrast_increase_and_structure_sim": (
        lambda: gimp_function("check_contrast_increase_and_structure_sim"), contrast_cases),
    "check_triangle_position": (lambda: gimp_function("check_triangle_position"), triangle_cases),
    "check_textbox_on_leftside": (lambda: gimp_function("check_textbox_on_leftside"), textbox_cases),
    "check_green_background": (lambda: gimp_function("check_green_background"), green_cases),
    "check_image_size": (lambda: gimp_function("check_image_size"), size_cases),
    "check_image_file_size": (lambda: gimp_function("check_image_file_size"), file_size_cases),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_picture_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    reference, cases = CASES[name]
    assert_agrees(name, reference(), metrics.METRICS[name], cases(), tmp_path, capsys, tolerance=TOLERANCE)


def image_list_outcome(function: Callable, mine: object, gold: object, folder, index: int, side: str) -> object:
    """OSWorld's function gets paths (None for a missing file), troupe's the bytes."""
    def path(data: bytes | None, number: int) -> str | None:
        if data is None:
            return None
        file = folder / f"case{index}-{side}{number}.png"
        file.write_bytes(data)
        return str(file)
    if side == "theirs":
        mine = [path(d, n) for n, d in enumerate(mine)] if isinstance(mine, list) else path(mine, 0)
        gold = [path(d, 10 + n) for n, d in enumerate(gold)] if isinstance(gold, list) else path(gold, 10)
    try:
        return float(function(mine, gold))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


def test_troupes_compare_image_list_agrees_with_osworlds(tmp_path, capsys):
    other, solid = encoded(OTHER), encoded(Image.new("RGB", (40, 40), (200, 10, 10)))
    alpha = np.array(PHOTO.convert("RGBA"))
    recoloured = alpha.copy()
    recoloured[..., 0] = 255 - recoloured[..., 0]
    faded = alpha.copy()
    faded[:5, :5, 3] = 100
    cases = [
        ([PNG, other], [PNG, other]), ([PNG, other], [PNG, PNG]), (PNG, PNG), (PNG, other), ([None, PNG], [PNG, PNG]),
        ([PNG], [None]), ([solid], [encoded(Image.new("RGB", (20, 20), (200, 10, 10)))]),
        ([PNG], [encoded(PHOTO.convert("L"))]), ([encoded(PHOTO.convert("L"))], [PNG]),
        ([encoded(Image.fromarray(recoloured))], [encoded(Image.fromarray(alpha))]),  # Pillow reads the alpha only
        ([encoded(Image.fromarray(faded))], [encoded(Image.fromarray(alpha))]),
        ([GARBAGE], [PNG]), ([PNG, other, GARBAGE], [PNG, other]), ([JPEG], [PNG]), ([JPEG], [JPEG]),
        ([encoded(PHOTO, "GIF")], [encoded(PHOTO.quantize(256))]),
    ]
    reference = gimp_function("compare_image_list")
    differences = []
    for index, (mine, gold) in enumerate(cases):
        theirs = image_list_outcome(reference, mine, gold, tmp_path, index, "theirs")
        ours = image_list_outcome(metrics.METRICS["compare_image_list"], mine, gold, tmp_path, index, "ours")
        if theirs != ours:
            differences.append((index, theirs, ours))
    report_parity(capsys, "compare_image_list", len(cases), differences)
