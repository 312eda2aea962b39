"""Images for the model: recognise image data, shrink images too big to send, make image blocks.

Pillow is imported only when an image has to be decoded, so reading text costs nothing extra.
"""

from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handrail.errors import HandrailError

if TYPE_CHECKING:
    from PIL.Image import Image

IMAGE_MEDIA_TYPES: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
"""File extensions Read returns as images, and their media types."""

MAX_SIDE = 2000
"""Images with a longer side than this (in pixels) are scaled down to it."""

MAX_BASE64_CHARS = 3_750_000
"""Images whose base64 form is longer than this are re-encoded smaller."""

_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}


class ImageError(HandrailError):
    """The data is not an image this module can send; the message is written for the model."""


def is_image_path(path: Path) -> bool:
    """Whether `path` has the extension of an image Read returns as an image."""
    return path.suffix.lower() in IMAGE_MEDIA_TYPES


def sniff_media_type(data: bytes) -> str | None:
    """The media type of PNG, JPEG, GIF or WebP data, from its first bytes (None for anything else)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def base64_length(size: int) -> int:
    """How many characters `size` bytes take in base64."""
    return 4 * ((size + 2) // 3)


@dataclass(frozen=True)
class PreparedImage:
    """An image ready to send: its bytes and media type, and its size before and after shrinking."""

    data: bytes
    media_type: str
    width: int
    height: int
    original_width: int
    original_height: int
    original_bytes: int
    resized: bool = False
    """Whether the image was re-encoded (scaled down or compressed harder)."""

    def block(self) -> dict[str, Any]:
        """The image content block for the model."""
        return image_block(self.data, self.media_type)

    def describe(self) -> str:
        """Words for what was done to the image, for a note next to it."""
        if not self.resized:
            return f"Image: {self.width}x{self.height} pixels, {self.media_type}."
        return (
            f"Image scaled down from {self.original_width}x{self.original_height} pixels "
            f"({self.original_bytes:,} bytes) to {self.width}x{self.height} ({len(self.data):,} bytes, "
            f"{self.media_type}) to fit the size the model accepts."
        )


def image_block(data: bytes, media_type: str) -> dict[str, Any]:
    """An image content block carrying `data` in base64."""
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode("ascii")},
    }


def prepare_image(data: bytes, *, max_side: int = MAX_SIDE, max_base64: int = MAX_BASE64_CHARS) -> PreparedImage:
    """`data` as it is when it is small enough, else scaled down (keeping its aspect) and re-encoded.

    Raises ImageError for data that is not a PNG, JPEG, GIF or WebP image Pillow can decode.
    """
    media_type = sniff_media_type(data)
    if media_type is None:
        raise ImageError("The file is not a PNG, JPEG, GIF or WebP image (its content does not start like one).")
    from PIL import Image as PilImage

    image = _open(data)
    width, height = image.size
    if max(width, height) <= max_side and base64_length(len(data)) <= max_base64:
        return PreparedImage(data, media_type, width, height, width, height, len(data))
    try:
        out, out_type, size = _shrink(image, media_type, max_side, max_base64)
    except (OSError, ValueError, PilImage.DecompressionBombError) as exc:
        raise ImageError(f"The image could not be decoded to scale it down: {exc}") from exc
    return PreparedImage(out, out_type, size[0], size[1], width, height, len(data), resized=True)


def _open(data: bytes) -> Image:
    from PIL import Image as PilImage

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PilImage.DecompressionBombWarning)
            return PilImage.open(io.BytesIO(data))
    except (PilImage.DecompressionBombError, PilImage.DecompressionBombWarning) as exc:
        raise ImageError(f"The image has too many pixels to decode safely ({exc}).") from exc
    except (OSError, ValueError) as exc:
        raise ImageError(f"The image could not be decoded: {exc}") from exc


def _shrink(image: Image, media_type: str, max_side: int, max_base64: int) -> tuple[bytes, str, tuple[int, int]]:
    from PIL import Image as PilImage
    from PIL import ImageOps

    width, height = image.size
    scale = min(1.0, max_side / max(width, height))
    target = (max(1, round(width * scale)), max(1, round(height * scale)))
    if media_type == "image/jpeg":
        image.draft("RGB", target)  # let the decoder skip detail that scaling would throw away
    image = ImageOps.exif_transpose(image) or image
    image = _normalise_mode(image)
    if image.size != target:
        image = image.resize(target, PilImage.Resampling.LANCZOS)
    out_type = "image/png" if media_type == "image/gif" else media_type
    data = _encode(image, out_type, quality=85)
    if base64_length(len(data)) <= max_base64:
        return data, out_type, image.size
    # Still too big: JPEG at falling quality, then smaller and smaller.
    for quality in (80, 65, 50):
        data = _encode(image, "image/jpeg", quality=quality)
        if base64_length(len(data)) <= max_base64:
            return data, "image/jpeg", image.size
    while max(image.size) > 64:
        image = image.resize(
            (max(1, image.size[0] * 3 // 4), max(1, image.size[1] * 3 // 4)), PilImage.Resampling.LANCZOS
        )
        data = _encode(image, "image/jpeg", quality=50)
        if base64_length(len(data)) <= max_base64:
            return data, "image/jpeg", image.size
    return data, "image/jpeg", image.size


def _normalise_mode(image: Image) -> Image:
    """`image` in a mode that scales smoothly: RGB(A) or L(A)."""
    if image.mode in ("RGB", "RGBA", "L", "LA"):
        return image
    transparent = image.mode in ("PA", "P") and "transparency" in image.info
    return image.convert("RGBA" if transparent or image.mode.endswith("A") else "RGB")


def _encode(image: Image, media_type: str, *, quality: int) -> bytes:
    from PIL import Image as PilImage

    buffer = io.BytesIO()
    if media_type == "image/jpeg":
        if image.mode in ("RGBA", "LA"):
            background = PilImage.new("RGB", image.size, (255, 255, 255))
            background.paste(image.convert("RGBA"), mask=image.convert("RGBA").getchannel("A"))
            image = background
        elif image.mode != "L":
            image = image.convert("RGB")
        image.save(buffer, format="JPEG", quality=quality)
    elif media_type == "image/webp":
        image.save(buffer, format="WEBP", quality=quality)
    else:
        image.save(buffer, format=_FORMATS[media_type])
    return buffer.getvalue()
