"""Scaffolding: ``attn-course new question`` and ``new assignment`` write the files a course addition needs."""
