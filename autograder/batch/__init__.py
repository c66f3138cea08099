"""``attn-course grade <id> DIR -j N``: grade a folder of submissions into the gradebook."""
