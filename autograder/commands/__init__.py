"""The small verbs of ``attn-course`` that have no package of their own: one module each."""
