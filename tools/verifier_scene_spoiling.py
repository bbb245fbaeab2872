"""What a table scene does to an index corner, done again to the verifier's training crops.

`--verifier-scene S` (`tools/train_vision.py`) spoils every training batch
at strength S beyond the geometric and light spoiling of `augment`:

- glare: a soft round patch where the crop fades towards the paper's level,
  so a glyph's strokes there lose most of their contrast (a lamp's reflection
  on the card's gloss);
- motion blur: the crop smeared along a random direction (the dealer's hand
  or the camera moving while the shutter is open);
- shear: a vertical stroke leaning against the rank-to-pip axis, as a card
  turned on a table tilted to the camera shows its index.

The crops are the network's inputs (`vision.features.net_input`: paper about
0.5, ink about -0.5). Random numbers are drawn from `generator` only when S > 0,
so a run without it draws exactly what it did before.
"""

from __future__ import annotations

import math
from typing import Any

# At strength 1: the share of crops with a glare patch, its strongest fade
# towards paper and its radius (standard deviation, crop pixels); the share of
# crops smeared and the longest smear (crop pixels); the strongest shear (crop
# pixels across per pixel down).
GLARE_SHARE = 0.35
GLARE_FADE = 0.85
GLARE_RADIUS_PX = (3.0, 12.0)
PAPER_LEVEL = 0.5
SMEAR_SHARE = 0.35
SMEAR_PX = 4.0
SMEAR_TAPS = 5
SHEAR = 0.12


def sheared_theta(theta: Any, generator: Any, scene: float, aspect: float) -> Any:
    """Affine matrices (n, 2, 3) of normalised coordinates with a random shear added.

    `aspect` is the crop's height over its width: a shear of s crop pixels
    across per pixel down is s / aspect in normalised coordinates.
    """
    import torch

    n = theta.shape[0]
    shear = SHEAR * scene * (2 * torch.rand(n, generator=generator) - 1)
    with_shear = theta.clone()
    # Sampling x' = x + shear * y: theta @ [[1, k], [0, 1]] adds k times column 0 to column 1.
    with_shear[:, :, 1] = theta[:, :, 1] + (shear * aspect)[:, None] * theta[:, :, 0]
    return with_shear


def glared(x: Any, generator: Any, scene: float) -> Any:
    """Crops (n, 3, H, W) with a soft patch faded towards the paper's level in a share of them."""
    import torch

    n, _, height, width = x.shape
    chosen = (torch.rand(n, generator=generator) < GLARE_SHARE * min(scene, 1 / GLARE_SHARE))
    centre_x = torch.rand(n, generator=generator) * width
    centre_y = torch.rand(n, generator=generator) * height
    low, high = GLARE_RADIUS_PX
    radius = low + (high - low) * torch.rand(n, generator=generator)
    fade = GLARE_FADE * torch.rand(n, generator=generator) * chosen
    ys = torch.arange(height, dtype=x.dtype)[None, :, None]
    xs = torch.arange(width, dtype=x.dtype)[None, None, :]
    distance2 = (xs - centre_x[:, None, None]) ** 2 + (ys - centre_y[:, None, None]) ** 2
    weight = (fade[:, None, None] * torch.exp(-distance2 / (2 * radius[:, None, None] ** 2)))
    weight = weight[:, None]
    return x + weight * (PAPER_LEVEL - x)


def smeared(x: Any, generator: Any, scene: float) -> Any:
    """Crops (n, 3, H, W) averaged along a random direction over up to `SMEAR_PX` * scene
    pixels, in a share of them (the others unchanged)."""
    import torch
    from torch import nn

    n, _, height, width = x.shape
    chosen = torch.rand(n, generator=generator) < SMEAR_SHARE * min(scene, 1 / SMEAR_SHARE)
    length = SMEAR_PX * scene * torch.rand(n, generator=generator) * chosen
    angle = math.pi * torch.rand(n, generator=generator)
    step_x = length * torch.cos(angle) * (2 / width)
    step_y = length * torch.sin(angle) * (2 / height)
    identity = torch.eye(2, 3, dtype=x.dtype).expand(n, 2, 3)
    total = torch.zeros_like(x)
    for tap in range(SMEAR_TAPS):
        offset = tap / (SMEAR_TAPS - 1) - 0.5
        theta = identity.clone()
        theta[:, 0, 2] = offset * step_x
        theta[:, 1, 2] = offset * step_y
        grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
        total = total + nn.functional.grid_sample(x, grid, padding_mode="border",
                                                  align_corners=False)
    return total / SMEAR_TAPS
