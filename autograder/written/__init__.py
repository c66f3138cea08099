"""Written answers graded by people: free-response questions, their release cells, extraction, review and scores.

- :mod:`.schema`: the questions and rubric items of course.yml (``written`` of an assignment).
- :mod:`.cells`: the answer cells of the release notebooks and the ``answers.md`` beside the module.
- :mod:`.extract`: each answer read from a submission (unanswered ones marked).
- :mod:`.store`: the answers and their manual grades in the gradebook file, with a version per answer.
- :mod:`.scores`: manual scores merged into the rows every export reads.
- :mod:`.server` and :mod:`.pages`: ``attn-course review``, the TAs' local web page.
"""
