"""The published numbers of each reproduced paper, shipped as data (``data/<paper>.yaml``).

Each file names the paper by its exact title and lists every numeric results table: where the
table is (section and number), its columns (the metric key our games report, the printed label,
whether the paper prints it as a percentage) and its rows. A row is its identity (cost setting,
model identifier, reference protocol, backend, ratio, ...) plus its printed values in column
order. A table the kit cannot reproduce (a human audit, an API bill, a closed judge pipeline)
says why in ``not_reproduced``. ``results`` holds the numbers the text states as results outside
its tables, each with the value of ours it is set beside (``key`` and ``match``) or the reason
the kit cannot reproduce it. ``figures`` says how each reproduced paper figure is drawn. Nothing
here is computed: these are the paper's numbers, transcribed, and they only ever sit beside ours.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accord.core.errors import ConfigError
from accord.core.inputs import load_yaml

PAPERS: tuple[str, ...] = ("calbench", "mas-bench", "grounding")
"""The papers `accord reproduce` knows, by the name it takes on the command line."""

_RESERVED = frozenset({"label", "values", "seats"})


class Column(BaseModel):
    """One column of a published table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(description="The metric key our games report (trace metrics or seat rows).")
    label: str = Field(description="The column header as the paper prints it.")
    percent: bool = Field(False, description="The paper prints it as a percentage.")


class PublishedRow(BaseModel):
    """One row of a published table: its identity (extra fields) and its values."""

    model_config = ConfigDict(extra="allow", frozen=True)

    label: str = Field(description="The row as the paper names it.")
    values: list[float | None] = Field(description="Printed values, in column order.")
    seats: int | None = Field(None, description="The paper's N for the row, when printed.")

    @property
    def identity(self) -> dict[str, Any]:
        """The fields that say which of our rows this one is compared with."""
        return {k: v for k, v in (self.model_extra or {}).items() if k not in _RESERVED}


class PublishedTable(BaseModel):
    """A reproduced table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="The table number in the paper.")
    where: str = Field(description="Section and table, e.g. '§4.3, Table 2'.")
    caption: str = Field(description="What the table shows, in our words.")
    needs_model: bool = Field(description="False when its rows are reference protocols.")
    not_reproduced: str | None = Field(
        None, description="Why the kit cannot reproduce this table (None: it does)."
    )
    printed: bool = Field(
        True, description="False for a figure the paper draws without printing its numbers."
    )
    rows_need: str | None = Field(
        None,
        description="What one of our games needs to give the table a row, when not every "
        "complete game does (said when a run's games give it none).",
    )
    pooled: bool = Field(
        False,
        description="Rows pool over the paper's models (compared by value only when "
        "the reproduction plays exactly those models).",
    )
    columns: list[Column]
    rows: list[PublishedRow]

    @model_validator(mode="after")
    def _widths(self) -> PublishedTable:
        if self.printed and not self.rows:
            raise ValueError(f"table {self.id}: no rows (set printed: false for a figure)")
        for row in self.rows:
            if len(row.values) != len(self.columns):
                raise ValueError(
                    f"table {self.id}, row {row.label!r}: {len(row.values)} values for "
                    f"{len(self.columns)} columns"
                )
        return self


FigureShape = Literal["bars", "points", "lines", "talk"]


class PublishedFigure(BaseModel):
    """A paper figure the kit draws, in the paper's shape, from one reproduced table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    table: str = Field(description="The reproduced table whose rows the figure draws.")
    columns: list[str] = Field(description="Metric keys, one panel each, in the paper's order.")
    where: str
    shape: FigureShape = Field(
        "points",
        description="bars (grouped, with CIs), points (a dot per row), lines (a series per "
        "team over `x`), talk (talk against no-talk dots with the gain shaded).",
    )
    x: str | None = Field(None, description="The identity field along the x axis.")
    group: str | None = Field(None, description="The identity field that names the series.")
    unit: str = Field(
        "games",
        description="What the drawn CIs resample, as the figure's note says it (the paper's "
        "unit where the kit's games are exactly those units).",
    )


class StatedResult(BaseModel):
    """A number the paper's text states as a result, outside its tables."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    where: str = Field(description="The section that states it.")
    what: str = Field(description="What the number is, in our words.")
    value: float = Field(description="The number as printed.")
    decimals: int | None = Field(
        None,
        description="Digits the paper prints after the point where they are not implied by "
        "`value` (1.20, 5.0); None: as `value` reads.",
    )
    of: float | None = Field(None, description="For 'value of N', the N (compared as a share).")
    percent: bool = False
    key: str | None = Field(None, description="The value of ours set beside it.")
    match: dict[str, Any] = Field(
        default_factory=dict, description="Which games enter our value (identity fields)."
    )
    not_reproduced: str | None = Field(None, description="Why the kit cannot reproduce it.")

    @property
    def shown(self) -> str:
        """The value as the paper prints it (with its % and its total, if any)."""
        number = f"{self.value:g}" if self.decimals is None else f"{self.value:.{self.decimals}f}"
        if self.of:
            return f"{number} of {self.of:g}"
        return number + ("%" if self.percent else "")

    @model_validator(mode="after")
    def _one_of(self) -> StatedResult:
        if (self.key is None) == (self.not_reproduced is None):
            raise ValueError(f"result {self.id}: give exactly one of key and not_reproduced")
        return self


ItemStatus = Literal["reproduced", "drawn", "not_reproduced", "specification"]


class PaperItem(BaseModel):
    """One table or figure of the paper, in its own numbering, and what the kit does with it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item: str = Field(description="As the paper numbers it: 'Table 3', 'Figure 2'.")
    status: ItemStatus = Field(
        description="reproduced (the kit compares ours with it), drawn (`accord report` draws "
        "or tabulates it from the same games, not set beside the paper's), not_reproduced "
        "(with the reason), specification (the setup the game implements: no result)."
    )
    what: str = Field(description="What the paper shows there, in our words.")
    reason: str | None = Field(
        None,
        description="Why it is not reproduced, or where the report writes it / what "
        "the game implements from it.",
    )

    @model_validator(mode="after")
    def _explained(self) -> PaperItem:
        if self.status != "reproduced" and not self.reason:
            raise ValueError(f"{self.item}: status {self.status} needs a reason")
        return self


class PublishedPaper(BaseModel):
    """One paper's published numbers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paper: str
    title: str
    tables: list[PublishedTable]
    figures: list[PublishedFigure] = Field(default_factory=list)
    results: list[StatedResult] = Field(default_factory=list)
    contents: list[PaperItem] = Field(
        default_factory=list,
        description="Every table and figure of the paper in its own numbering, with status.",
    )
    model_settings: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="How the paper called each of its models (temperature, max_tokens, "
        "options), by model identifier.",
    )

    @model_validator(mode="after")
    def _contents_agree(self) -> PublishedPaper:
        """`contents` says "reproduced" for exactly the tables and figures the kit compares."""
        if not self.contents:
            return self
        listed = {i.item: i.status for i in self.contents}
        if len(listed) != len(self.contents):
            raise ValueError(f"{self.paper}: an item is listed twice in contents")
        for t in self.tables:
            if not t.printed:
                continue
            want = "reproduced" if t.not_reproduced is None else "not_reproduced"
            if listed.get(f"Table {t.id}") != want:
                raise ValueError(f"{self.paper}: contents must list Table {t.id} as {want}")
        for f in self.figures:
            if listed.get(f"Figure {f.id}") != "reproduced":
                raise ValueError(f"{self.paper}: contents must list Figure {f.id} as reproduced")
        compared = {f"Table {t.id}" for t in self.tables if t.printed and not t.not_reproduced}
        compared |= {f"Figure {f.id}" for f in self.figures}
        extra = sorted(k for k, v in listed.items() if v == "reproduced" and k not in compared)
        if extra:
            raise ValueError(
                f"{self.paper}: {', '.join(extra)} listed as reproduced, not in the kit"
            )
        return self

    def table(self, table_id: str) -> PublishedTable:
        """The table numbered `table_id`; a `ConfigError` listing the others if none."""
        for t in self.tables:
            if t.id == table_id:
                return t
        raise ConfigError(
            f"{self.paper} has no table {table_id!r}; choose one of: {', '.join(self.reproducible)}"
        )

    @property
    def reproducible(self) -> list[str]:
        """Ids of the tables the kit reproduces, in the paper's order."""
        return [t.id for t in self.tables if t.not_reproduced is None]

    def reproduced_table(self, table_id: str) -> PublishedTable:
        """The table numbered `table_id` if the kit reproduces it; a `ConfigError` saying why
        not, or listing the reproducible ones."""
        table = self.table(table_id)
        if table.not_reproduced is not None:
            raise ConfigError(
                f"{self.paper} Table {table_id} is not reproduced by this kit: "
                f"{table.not_reproduced} Reproducible: {', '.join(self.reproducible)}"
            )
        return table

    def figure(self, figure_id: str) -> PublishedFigure:
        """The figure numbered `figure_id`; a `ConfigError` listing the others if none."""
        for f in self.figures:
            if f.id == figure_id:
                return f
        known = ", ".join(f.id for f in self.figures) or "none"
        raise ConfigError(
            f"{self.paper} has no reproducible figure {figure_id!r}; choose one of: {known}"
        )


@cache
def load_published(paper: str) -> PublishedPaper:
    """The packaged published numbers of `paper` (one of `PAPERS`)."""
    if paper not in PAPERS:
        raise ConfigError(f"unknown paper {paper!r}; choose one of: {', '.join(PAPERS)}")
    source = f"published numbers of {paper}"
    text = resources.files("accord.reproduce").joinpath("data", f"{paper}.yaml").read_text("utf-8")
    try:
        return PublishedPaper.model_validate(load_yaml(text, source=source))
    except ValidationError as exc:  # a packaging bug, but say which file
        raise ConfigError(f"{source}: {exc}") from exc
