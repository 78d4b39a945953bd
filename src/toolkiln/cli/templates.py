"""`toolkiln templates list | show SLUG | render SLUG [--set key=value ...] [-o OUT] [--dsl]`.

Exit codes as for the other commands: 0 ok, 1 diagnostics (an unknown template or a bad
value), 2 usage (a `--set` without `=`, an unwritable output file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError
from toolkiln.errors import CompileError

# The templates (their workflows parse with Lark) and the renderers load when a command runs:
# `toolkiln --help` builds this parser too (issue 34).


def add_templates_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    templates = commands.add_parser("templates", help="starter workflows with parameters, rendered to n8n")
    actions = templates.add_subparsers(dest="templates_command", required=True, metavar="ACTION")
    actions.add_parser("list", help="list the templates").set_defaults(handler=cmd_list)
    show = actions.add_parser("show", help="a template's parameters and DSL source")
    show.add_argument("slug")
    show.set_defaults(handler=cmd_show)
    render = actions.add_parser("render", help="render a template to n8n workflow JSON (or DSL with --dsl)")
    render.add_argument("slug")
    render.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", dest="values", help="a parameter value (repeatable)"
    )
    render.add_argument("-o", "--output", type=Path, help="write here (default: standard output)")
    render.add_argument("--dsl", action="store_true", help="write the rendered workflow DSL instead of JSON")
    render.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    render.set_defaults(handler=cmd_render)


def cmd_list(args: argparse.Namespace) -> int:
    from toolkiln import templates

    for template in templates.list():
        print(f"{template.slug:<22} {template.title}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from toolkiln import templates
    from toolkiln.diagnostics.render import render_texts

    try:
        template = templates.get(args.slug)
    except CompileError as error:
        print(render_texts(error.diagnostics), file=sys.stderr)
        return EXIT_FAILED
    print(f"{template.slug}: {template.title}\n\n{template.description}\n\nparameters:")
    for p in template.parameters:
        default = "(required)" if p.required else f"= {json.dumps(p.default, ensure_ascii=False)}"
        print(f"  {p.name}: {p.type.name} {default}\n      {p.description}")
    print(f"\n{template.dsl}", end="")
    return EXIT_OK


def cmd_render(args: argparse.Namespace) -> int:
    values: dict[str, str] = {}
    for item in args.values:
        key, equals, value = item.partition("=")
        if not equals:
            raise UsageError(f"--set {item!r}: write it as KEY=VALUE")
        values[key.strip()] = value
    from toolkiln import templates
    from toolkiln.diagnostics.render import render_json, render_texts

    try:
        if args.dsl:
            output = templates.render_text(args.slug, **values)
        else:
            output = json.dumps(templates.render(args.slug, **values).to_n8n(), indent=2, ensure_ascii=False) + "\n"
    except CompileError as error:
        if args.format == "json":
            print(render_json(error.diagnostics))
        else:
            print(render_texts(error.diagnostics), file=sys.stderr)
        return EXIT_FAILED
    if args.output is None:
        sys.stdout.write(output)
        return EXIT_OK
    try:
        args.output.write_text(output, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {args.output}: {error}") from None
    return EXIT_OK
