"""``attn-course check``: the public checks a student runs locally."""
