"""What the camera and the room do to a picture: felt, light, glare, shadows, blur, JPEG."""

from __future__ import annotations

import math

import cv2
import numpy as np

FELT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (45, 110, 30), (40, 95, 20), (70, 120, 25), (110, 70, 20), (40, 40, 120),
    (60, 90, 40),
)


def felt(rng: np.random.Generator, width: int, height: int,
         colour: tuple[int, int, int]) -> np.ndarray:
    """Felt cloth: a base colour with blotches and a fine weave grain."""
    coarse = rng.standard_normal((max(2, height // 40), max(2, width // 40)), dtype=np.float32)
    low = np.asarray(cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)) * 6.0
    fine = rng.standard_normal((height, width), dtype=np.float32) * 5.0
    grain = np.asarray(cv2.GaussianBlur(fine, (0, 0), 0.7))
    base = np.array(colour, np.float32)[None, None, :]
    out = base + (low + grain)[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def uneven_light(rng: np.random.Generator, image: np.ndarray, strength: float) -> np.ndarray:
    """A light gradient across the table, a vignette and a slight colour cast."""
    if strength <= 0:
        return image
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = ((xs - w / 2) * math.cos(angle) + (ys - h / 2) * math.sin(angle)) / max(w, h)
    cx, cy = rng.uniform(0.2 * w, 0.8 * w), rng.uniform(0.2 * h, 0.8 * h)
    radial = ((xs - cx) ** 2 + (ys - cy) ** 2) / float(w * w)
    gain = 1.0 + strength * (rng.uniform(0.5, 0.9) * ramp - rng.uniform(0.3, 0.8) * radial)
    gain *= rng.uniform(1 - 0.25 * strength, 1 + 0.1 * strength)
    # A camera's auto exposure keeps the darkest part of the table at half light or more.
    gain = np.clip(gain, 0.5, 1.4)
    cast = 1.0 + strength * rng.uniform(-0.06, 0.06, 3)
    out = image.astype(np.float32) * gain[:, :, None] * cast[None, None, :].astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def glare(rng: np.random.Generator, image: np.ndarray, spots: int) -> np.ndarray:
    """Soft bright reflections of the table lamps (elongated gaussian spots)."""
    if spots <= 0:
        return image
    h, w = image.shape[:2]
    light = np.zeros((h, w), np.float32)
    for _ in range(spots):
        sigma = rng.uniform(12, 50)
        size = int(sigma * 8) | 1
        blob = np.zeros((size, size), np.float32)
        axes = (int(sigma * rng.uniform(1.0, 2.2)), int(sigma * rng.uniform(0.5, 1.0)))
        cv2.ellipse(blob, (size // 2, size // 2), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        blob = np.asarray(cv2.GaussianBlur(blob, (0, 0), sigma * 0.6), np.float32)
        blob *= rng.uniform(40, 105) / max(blob.max(), 1e-6)
        x, y = int(rng.uniform(0, w)) - size // 2, int(rng.uniform(0, h)) - size // 2
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + size), min(h, y + size)
        if x1 > x0 and y1 > y0:
            light[y0:y1, x0:x1] += blob[y0 - y:y1 - y, x0 - x:x1 - x]
    out = image.astype(np.float32) + light[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def hand_shadows(rng: np.random.Generator, image: np.ndarray, count: int) -> np.ndarray:
    """Soft shadows of a dealer's arm and hand reaching over the table."""
    if count <= 0:
        return image
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.float32)
    for _ in range(count):
        hx, hy = rng.uniform(0.1 * w, 0.9 * w), rng.uniform(0.15 * h, 0.85 * h)
        # The arm comes from the dealer's side (top of the frame).
        ax, ay = hx + rng.uniform(-0.3, 0.3) * w, -0.1 * h
        length = math.hypot(hx - ax, hy - ay)
        angle = math.degrees(math.atan2(hy - ay, hx - ax))
        mid = (int((hx + ax) / 2), int((hy + ay) / 2))
        cv2.ellipse(mask, mid, (int(length / 2), int(0.045 * w)), angle, 0, 360, 1.0, -1)
        cv2.ellipse(mask, (int(hx), int(hy)), (int(0.06 * w), int(0.045 * w)), angle, 0, 360,
                    1.0, -1)
        for f in range(4):
            fa = math.radians(angle - 30 + 20 * f)
            fx, fy = hx + 0.08 * w * math.cos(fa), hy + 0.08 * w * math.sin(fa)
            cv2.ellipse(mask, (int(fx), int(fy)), (int(0.035 * w), int(0.011 * w)),
                        math.degrees(fa), 0, 360, 1.0, -1)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), rng.uniform(8, 22)), np.float32)
    darkness = rng.uniform(0.3, 0.55)
    gain = 1.0 - darkness * np.clip(mask, 0, 1)
    return np.clip(image.astype(np.float32) * gain[:, :, None], 0, 255).astype(np.uint8)


def motion_blur(rng: np.random.Generator, image: np.ndarray, length: float) -> np.ndarray:
    """Blur along a straight line `length` pixels long (camera shake, moving table)."""
    if length < 1.5:
        return image
    size = int(math.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    angle = rng.uniform(0, math.pi)
    c = size // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1,
             cv2.LINE_AA)
    kernel /= kernel.sum()
    return cv2.filter2D(image, -1, kernel)


def sensor_noise(rng: np.random.Generator, image: np.ndarray, sigma: float) -> np.ndarray:
    if sigma <= 0:
        return image
    noise = rng.standard_normal(image.shape, dtype=np.float32) * np.float32(sigma)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def jpeg(image: np.ndarray, quality: int | None) -> np.ndarray:
    """Encode and decode as JPEG at `quality` (None: leave as is)."""
    if quality is None:
        return image
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("OpenCV could not encode the frame as JPEG")
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR))
