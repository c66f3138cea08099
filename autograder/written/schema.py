"""Free-response questions of an assignment in course.yml (its ``written`` list), validated.

Each question has an id, a prompt in every language of the course, the points it is worth and
rubric items: each item an id, the points it awards and a short description in every language.
A TA applies items; the answer scores the sum of the items applied, at most the question's points.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from autograder.languages import KNOWN_LANGUAGES, SOURCE_LANGUAGE

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
Language = Literal[tuple(KNOWN_LANGUAGES)]  # type: ignore[valid-type]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _id_form(value: str) -> str:
    if not _ID.match(value):
        raise ValueError("must be lower case letters, digits and underscores, starting with a letter")
    return value


def _texts(texts: dict[str, str]) -> dict[str, str]:
    if SOURCE_LANGUAGE not in texts:
        raise ValueError(f"needs the {SOURCE_LANGUAGE} text (the source language)")
    empty = sorted(code for code, text in texts.items() if not text.strip())
    if empty:
        raise ValueError(f"empty texts for {empty}")
    return texts


class RubricItem(_Strict):
    id: str = Field(description="Stable id of the item within its question, e.g. variance_grows.")
    points: float = Field(gt=0, description="Points the item awards when a TA applies it.")
    description: dict[Language, str] = Field(description="What the answer must say for the item, by language code.")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return _id_form(value)

    @field_validator("description")
    @classmethod
    def _described(cls, texts: dict[str, str]) -> dict[str, str]:
        return _texts(texts)

    def text_in(self, language: str) -> str:
        """The description in ``language`` (English when it has none)."""
        return self.description.get(language, self.description[SOURCE_LANGUAGE])


class WrittenQuestion(_Strict):
    id: str = Field(description="Stable id of the question, e.g. why_sqrt_dk: the answer cell's tag.")
    prompt: dict[Language, str] = Field(description="The question the student answers, by language code.")
    points: float = Field(gt=0, description="Points the question is worth (graded by people).")
    rubric: tuple[RubricItem, ...] = Field(min_length=1, description="Rubric items a TA applies.")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return _id_form(value)

    @field_validator("prompt")
    @classmethod
    def _prompted(cls, texts: dict[str, str]) -> dict[str, str]:
        return _texts(texts)

    @model_validator(mode="after")
    def _items(self) -> "WrittenQuestion":
        ids = [item.id for item in self.rubric]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"rubric items repeat ids: {repeated}")
        too_many = [item.id for item in self.rubric if item.points > self.points]
        if too_many:
            raise ValueError(f"rubric items worth more than the question ({self.points:g}): {too_many}")
        if sum(item.points for item in self.rubric) < self.points:
            raise ValueError(f"the rubric items add up to less than the question's {self.points:g} points")
        return self

    def prompt_in(self, language: str) -> str:
        """The prompt in ``language`` (English when it has none)."""
        return self.prompt.get(language, self.prompt[SOURCE_LANGUAGE])

    def item(self, item_id: str) -> RubricItem | None:
        """The rubric item with this id, or None."""
        return next((item for item in self.rubric if item.id == item_id), None)

    def score_of(self, item_ids) -> float:
        """The points of the rubric items ``item_ids`` (unknown ids ignored), at most the question's."""
        found = {i for i in item_ids if self.item(i) is not None}
        return min(self.points, sum(item.points for item in self.rubric if item.id in found))


def written_problems(assignment, languages: tuple[str, ...]) -> list[str]:
    """Why the written questions of ``assignment`` do not fit the course: ids repeated or shared with a function,
    texts missing in a language of the course."""
    ids = [q.id for q in assignment.written]
    problems = [f"{assignment.id}: written question ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}"] \
        if len(set(ids)) < len(ids) else []
    shared = sorted(set(ids) & set(assignment.functions))
    if shared:
        problems.append(f"{assignment.id}: written questions named like graded functions: {shared}")
    for question in assignment.written:
        texts = [("prompt", question.prompt), *((f"rubric {i.id}", i.description) for i in question.rubric)]
        for what, text in texts:
            missing = [code for code in languages if code not in text]
            if missing:
                problems.append(f"{assignment.id}.written.{question.id}: {what} has no text in {missing} (course languages)")
    return problems
