"""Rendered table frames for the reader's tests: a procedural deck laid by the scene generator,
and the cards whose corner index shows."""

from __future__ import annotations

import numpy as np

from scorekeeper.synth.scene import Pack, SceneConfig, compose_scene


def rendered_table(
    rng: np.random.Generator, pack: Pack, config: SceneConfig, *, width: int, height: int
) -> tuple[np.ndarray, set[str]]:
    """One frame of ``pack``'s cards (the pack stands in for distractors too) and the cards
    labelled in it."""
    scene = compose_scene(
        rng,
        pack=pack,
        distractor_pack=pack,
        width=width,
        height=height,
        output_scale=1.0,
        config=config,
    )
    return scene.image, {label.label for label in scene.labels}
