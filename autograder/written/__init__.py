"""Written answers graded by people: free-response questions, their release cells, extraction, review and scores.

- :mod:`.schema`: the questions and rubric items of course.yml (``written`` of an assignment).
- :mod:`.cells`: the answer cells of the release notebooks and the ``answers.md`` beside the module.
- :mod:`.extract`: each answer read from a submission (unanswered ones marked).
- the answers and their manual grades live in the gradebook file (:mod:`autograder.gradebook.written`).
- manual scores are merged into the rows every export reads by :mod:`autograder.gradebook.written_scores`.
- :mod:`.server` and :mod:`.pages`: ``attn-course review``, the TAs' local web page.
"""
