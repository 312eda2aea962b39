"""Images: recognising them, and scaling down the ones too big to send."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from handrail.tools.images import (
    ImageError,
    base64_length,
    image_block,
    prepare_image,
    sniff_media_type,
)


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def test_sniffs_the_four_formats_by_content() -> None:
    small = Image.new("RGB", (4, 3), (200, 10, 10))
    assert sniff_media_type(encode(small, "PNG")) == "image/png"
    assert sniff_media_type(encode(small, "JPEG")) == "image/jpeg"
    assert sniff_media_type(encode(small, "GIF")) == "image/gif"
    assert sniff_media_type(encode(small, "WEBP")) == "image/webp"
    assert sniff_media_type(b"%PDF-1.4") is None
    assert sniff_media_type(b"") is None


def test_small_images_pass_through_unchanged() -> None:
    data = encode(Image.new("RGB", (40, 30), (0, 128, 255)), "PNG")
    image = prepare_image(data)
    assert image.data == data
    assert (image.media_type, image.width, image.height, image.resized) == ("image/png", 40, 30, False)
    block = image.block()
    assert block == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                  "data": base64.b64encode(data).decode()}}


def test_large_images_are_scaled_to_2000_keeping_aspect() -> None:
    data = encode(Image.new("RGB", (3000, 1200), (10, 200, 10)), "PNG")
    image = prepare_image(data)
    assert image.resized
    assert (image.width, image.height) == (2000, 800)
    assert (image.original_width, image.original_height) == (3000, 1200)
    assert image.media_type == "image/png"
    with Image.open(io.BytesIO(image.data)) as decoded:
        assert decoded.size == (2000, 800)
    assert "3000x1200" in image.describe() and "2000x800" in image.describe()


def test_tall_jpeg_keeps_its_format() -> None:
    data = encode(Image.new("RGB", (500, 2600), (90, 90, 90)), "JPEG")
    image = prepare_image(data)
    assert (image.width, image.height, image.media_type) == (385, 2000, "image/jpeg")


def test_images_over_the_byte_limit_are_compressed() -> None:
    noise = Image.frombytes("RGB", (300, 300), bytes((i * 7919) % 251 for i in range(300 * 300 * 3)))
    data = encode(noise, "PNG")
    limit = base64_length(len(data)) // 4
    image = prepare_image(data, max_base64=limit)
    assert image.resized
    assert base64_length(len(image.data)) <= limit
    assert image.media_type == "image/jpeg"
    assert image.width / image.height == pytest.approx(1.0, abs=0.02)


def test_gif_and_palette_images_become_png_when_scaled() -> None:
    data = encode(Image.new("P", (2400, 100)), "GIF")
    image = prepare_image(data)
    assert (image.media_type, image.width, image.height) == ("image/png", 2000, 83)


def test_transparent_png_compressed_to_jpeg_goes_on_white() -> None:
    pixels = bytes(((i * 7919) % 251) if i % 4 != 3 else 0 for i in range(200 * 200 * 4))
    data = encode(Image.frombytes("RGBA", (200, 200), pixels), "PNG")
    image = prepare_image(data, max_base64=base64_length(len(data)) // 4)
    assert image.media_type == "image/jpeg"
    with Image.open(io.BytesIO(image.data)) as decoded:
        assert decoded.mode == "RGB"
        assert decoded.getpixel((5, 5)) == pytest.approx((255, 255, 255), abs=8)


def test_not_an_image() -> None:
    with pytest.raises(ImageError, match="not a PNG, JPEG, GIF or WebP"):
        prepare_image(b"hello")
    with pytest.raises(ImageError, match="could not be decoded"):
        prepare_image(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)


def test_image_block_shape() -> None:
    assert image_block(b"abc", "image/gif") == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/gif", "data": "YWJj"},
    }
