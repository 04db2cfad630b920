"""servers.json is the one list of servers: its reader checks it, make prints it, and no other source lists or tests names."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from labanalysis.folder import catalogue
from labanalysis.folder.catalogue import CatalogueError

REPO = catalogue.CATALOGUE.parent
ENTRY = json.loads(catalogue.CATALOGUE.read_text())["servers"][0]


MODELS = [{"name": m, "words": m, "what": m} for m in ("coroutine", "virtual", "platform")]


def catalogue_text(**changes) -> str:
    entry = {**ENTRY, **changes}
    return json.dumps({"about": "", "fields": {}, "models": MODELS, "servers": [entry]})


def test_make_servers_prints_each_server_of_the_catalogue_as_name_engine_model():
    printed = subprocess.run(["make", "--no-print-directory", "servers"], cwd=REPO, capture_output=True, text=True, check=True).stdout

    assert printed.splitlines() == [f"{s.name} {s.engine} {s.model}" for s in catalogue.servers()]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["bogus"], "invalid choice: 'bogus'"),
        (["jar"], "`jar` takes one server's name"),
        (["names", "jetty-virtual"], "only `jar` takes one"),
        (["jar", "vthread"], "server 'vthread' is called 'jetty-virtual' since 2026-11-29: use that name"),
        (["jar", "fibers"], "unknown server 'fibers'; choose from"),
    ],
)
def test_a_mistaken_command_line_is_one_line_with_status_2(argv, said, capsys):
    assert catalogue.main(argv) == 2

    error = capsys.readouterr().err
    assert said in error and error.count("\n") == 1


def test_jar_gives_the_servers_jar_and_jars_every_one():
    first = catalogue.servers()[0]

    refused = subprocess.run(["make", "--no-print-directory", "serve", "SERVER=fibers"], cwd=REPO, capture_output=True, text=True)
    assert "make serve: SERVER: unknown server 'fibers'; choose from" in refused.stderr
    for argv, printed in [(["jar", first.name], first.jar + "\n"), (["jars"], "".join(s.jar + "\n" for s in catalogue.servers()))]:
        assert (
            subprocess.run(["python3", "-m", "labanalysis.folder.catalogue", *argv], cwd=REPO / "analysis", capture_output=True, text=True).stdout
            == printed
        )


def test_every_entry_names_a_module_of_the_build_and_a_jar_inside_it():
    modules = re.findall(r"<module>([^<]+)</module>", (REPO / "pom.xml").read_text())

    for server in catalogue.servers():
        assert server.module in modules, server.name
        # lab and conformance start the servers' jars in their tests, and Maven builds in this order.
        assert modules.index(server.module) < modules.index("lab") and modules.index(server.module) < modules.index("conformance")
        assert server.jar == f"{server.module}/target/{server.module}.jar", "the shade plugin names the jar after its module"


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"model": "fiber"}, "model 'fiber' is none of coroutine, virtual, platform"),
        ({"traits": {"canPin": True}}, "must have exactly"),
        ({"label": None, "colour": "tab:blue", "extra": 1}, "must have exactly"),
    ],
)
def test_a_malformed_entry_is_refused_naming_what_is_wrong(changes, message):
    with pytest.raises(CatalogueError, match=message):
        catalogue.parse(catalogue_text(**changes))


def test_a_run_folder_from_before_the_rename_is_drawn_as_the_server_it_was():
    # Run folders made before 2026-11-29 name the servers coroutine, vthread and platform.
    for old, now in [("coroutine", "ktor-coroutine"), ("vthread", "jetty-virtual"), ("platform", "jetty-platform")]:
        server = catalogue.server(now)
        assert old in server.former_names
        assert (catalogue.label(old), catalogue.colour(old), catalogue.model_in((), old)) == (server.label, server.colour, server.model)
    assert catalogue.order(["vthread", "jetty-coroutine", "fibers", "coroutine"]) == ["coroutine", "vthread", "jetty-coroutine", "fibers"]
    assert (catalogue.label("fibers"), catalogue.colour("fibers")) == ("fibers", catalogue.UNKNOWN_COLOUR)


def test_a_former_name_that_is_another_servers_name_is_refused():
    other = {**ENTRY, "name": "other", "formerNames": [ENTRY["name"]]}

    with pytest.raises(CatalogueError, match=f"other's former name '{ENTRY['name']}' is another server's name"):
        catalogue.parse(json.dumps({"models": MODELS, "servers": [ENTRY, other]}))


def test_a_catalogue_that_declares_no_models_is_refused():
    with pytest.raises(CatalogueError, match="must declare its models"):
        catalogue.parse(json.dumps({"servers": [ENTRY]}))


def test_a_model_made_of_one_the_catalogue_does_not_declare_is_refused():
    made = [*MODELS, {"name": "coroutine-fiber", "words": "", "what": "", "madeOf": ["coroutine", "fiber"]}]

    with pytest.raises(CatalogueError, match="model coroutine-fiber is made of coroutine, fiber"):
        catalogue.parse(json.dumps({"models": made, "servers": [ENTRY]}))


def test_coroutines_on_virtual_threads_are_made_of_coroutines_and_virtual_threads():
    assert catalogue.MADE_OF == {"coroutine-virtual": ("coroutine", "virtual")}


def test_every_declared_model_has_a_server_and_has_words_for_a_reader():
    assert set(catalogue.MODELS) == {s.model for s in catalogue.servers()}
    assert set(catalogue.MODEL_WORDS) == set(catalogue.MODELS)


def test_a_name_declared_twice_is_refused():
    twice = json.dumps({"models": MODELS, "servers": [ENTRY, ENTRY]})

    with pytest.raises(CatalogueError, match="each name once"):
        catalogue.parse(twice)


def test_an_unknown_name_is_refused_with_the_names_to_choose_from():
    with pytest.raises(CatalogueError, match="unknown server 'fibers'; choose from " + ", ".join(catalogue.names())):
        catalogue.server("fibers")


def test_a_server_the_catalogue_no_longer_declares_is_still_drawn_and_named():
    assert catalogue.colour("retired") == catalogue.UNKNOWN_COLOUR
    assert catalogue.label("retired") == "retired"
    assert catalogue.order(["retired", *reversed(catalogue.names())]) == [*catalogue.names(), "retired"]


def test_a_runs_own_record_of_a_servers_model_wins_over_the_catalogues():
    name = catalogue.names()[0]
    recorded = [{"name": name, "model": "platform"}]

    assert catalogue.model_in(recorded, name) == "platform"
    assert catalogue.model_in((), name) == catalogue.server(name).model
    assert catalogue.model_in((), "retired") is None


def test_a_runs_own_record_of_a_servers_engine_wins_over_the_catalogues():
    name = catalogue.names()[0]

    assert catalogue.engine_in([{"name": name, "engine": "jetty"}], name) == "jetty"
    assert catalogue.engine_in((), name) == catalogue.server(name).engine
    assert catalogue.engine_in((), "retired") is None


# What may name servers: the catalogue, tests and their fixtures, and prose (README, notes).
def _sources() -> list:
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    return [
        REPO / path
        for path in tracked
        if path != "servers.json"
        and "/src/test/" not in path
        and not path.startswith(("analysis/tests/", "infra/tests/"))
        and path.endswith((".kt", ".java", ".py", ".ipynb", ".js", ".sh", "Makefile", ".xml", ".conf"))
    ]


def _word(name: str) -> str:
    # A whole name: `jetty-virtual`, not `jetty-virtual-server` (a module) or `jetty-virtual-` (a thread name).
    return rf"(?<![\w-]){re.escape(name)}(?![\w-])"


def test_no_other_source_lists_the_servers_or_tests_a_name():
    names = catalogue.names()
    compared = re.compile("|".join(rf"[=!]=\s*[\"']{re.escape(n)}[\"']|[\"']{re.escape(n)}[\"']\s*[=!]=" for n in names))
    found = []
    for path in _sources():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            listed = sum(1 for n in names if re.search(_word(n), line)) >= 2
            if listed or compared.search(line) or re.search(r"\$\w*\(?\w*\)?-server/target", line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == [], "read servers.json (labanalysis.folder.catalogue, lab.support.Catalogue) instead:\n" + "\n".join(found)


def test_an_arm_is_its_server_without_the_changes_its_name_lists():
    assert catalogue.arm_of("jetty-virtual-without-fill-lock") == "jetty-virtual"
    assert catalogue.label("jetty-virtual-without-fill-lock") == f"{catalogue.label('jetty-virtual')}, without fill-lock"
    assert catalogue.engine_in((), "jetty-virtual-without-fill-lock") == "jetty"
    assert catalogue.model_in((), "jetty-virtual-without-fill-lock") == "virtual"
    assert catalogue.colour("jetty-virtual-without-fill-lock") not in {s.colour for s in catalogue.servers()}
    every = "-and-".join(catalogue.engine_changes()["jetty"])
    assert catalogue.label(f"jetty-virtual-without-{every}") == f"{catalogue.label('jetty-virtual')}, as shipped"
    # An arm is drawn right after its server.
    assert catalogue.order(["jetty-platform", "jetty-virtual-without-fill-lock", "jetty-virtual"]) == [
        "jetty-virtual",
        "jetty-virtual-without-fill-lock",
        "jetty-platform",
    ]


def test_an_arm_with_an_alternative_runs_it_in_place_of_the_change_it_replaces():
    alternatives = catalogue.engine_alternatives()["jetty"]
    alternative, replaced = next(iter(alternatives.items()))
    arm = f"jetty-virtual-with-{alternative}"
    assert catalogue.arm_of(arm) == "jetty-virtual"
    assert catalogue.label(arm) == f"{catalogue.label('jetty-virtual')}, with {alternative} instead of {replaced}"
    assert catalogue.colour(arm) != catalogue.colour(f"jetty-virtual-without-{replaced}")
    other = next(c for c in catalogue.engine_changes()["jetty"] if c != replaced)
    assert catalogue.label(f"jetty-virtual-without-{other}-with-{alternative}").endswith(f"without {other}, with {alternative} instead of {replaced}")


def test_an_alternative_instead_of_no_change_runs_beside_them_all():
    alternative = next(a for a, replaced in catalogue.engine_alternatives()["ktor-netty"].items() if replaced is None)
    arm = f"ktor-coroutine-with-{alternative}"
    assert catalogue.arm_of(arm) == "ktor-coroutine"
    assert catalogue.label(arm) == f"{catalogue.label('ktor-coroutine')}, with {alternative}"


def test_every_arm_is_read_back_as_the_harness_names_and_labels_it():
    # lab.support.ServerArmTest holds this file to what the harness (Catalogue.arm) makes of each arm now.
    made = json.loads((Path(__file__).parent / "fixtures" / "arms.json").read_text())
    assert made, "fixtures/arms.json lists no arm"
    for arm in made:
        assert (arm["name"], catalogue.arm_of(arm["name"]), catalogue.label(arm["name"])) == (arm["name"], arm["armOf"], arm["label"]), arm["text"]


@pytest.mark.parametrize(
    "name",
    ["jetty-virtual-with-fill-lock", "jetty-virtual-without-jfr", "jetty-virtual-without-close-linger", "fibers-without-fill-lock", "jetty-virtual"],
)
def test_a_name_is_no_arm_unless_its_server_and_every_change_it_lists_are_declared(name):
    assert catalogue.arm_of(name) is None


def test_an_arm_asked_for_as_a_server_is_told_to_run_its_server_with_as_shipped():
    with pytest.raises(CatalogueError, match="'jetty-virtual-without-fill-lock' is an arm of 'jetty-virtual', not a server"):
        catalogue.server("jetty-virtual-without-fill-lock")
