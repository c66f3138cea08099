"""``attn-course demo``: the main job end to end on a bundled sample class."""
