"""Static validation of a workflow: names, data flow over the graph, respond wiring, and the
types of its expressions (with the compute checker). It reports; it never raises."""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.types import ANY, ARRAY, BOOLEAN, NUMBER, OBJECT, STRING, Type, array_of, fits, record_of
from toolkiln.ast.visitor import walk
from toolkiln.check.checker import check_program
from toolkiln.check.scope import free_reads
from toolkiln.check.workflow.catalog import CatalogLoader
from toolkiln.check.workflow.digraph import ancestors
from toolkiln.check.workflow.graph import build_graph
from toolkiln.check.workflow.validation import Validation
from toolkiln.check.workflow.wiring import check_nodes, check_wiring
from toolkiln.diagnostics import codes


def validate(workflow: w.Workflow, *, catalog: CatalogLoader, lint: bool = False, strict: bool = False) -> Validation:
    """Generic nodes are checked against `catalog()`, called only when there are some.
    What n8n accepts is a warning unless `strict` (see validation.ACCEPTED_BY_N8N).
    `lint=True` (an imported n8n workflow) leaves the node catalog, unreachable nodes and
    loops to the n8n linter (`toolkiln.backends.n8n.lint`), which reports them as warnings."""
    result = Validation(build_graph(workflow), catalog, strict=strict)
    _names(workflow, result)
    _respond_wiring(workflow, result)
    check_wiring(result, structure=not lint)
    if not lint:
        check_nodes(workflow, result)
    for step in w.walk_steps(workflow.steps):
        if result.graph.steps.get(step.name) is not step:
            continue  # a duplicate: reported once, not checked twice
        for label, expr in _expressions(step):
            if _references(step, expr, result) and _fields_exist(expr, result):
                _types(step, label, expr, result)
    return result


def _names(workflow: w.Workflow, result: Validation) -> None:
    taken = {result.graph.trigger: "the trigger's node"}
    taken.update(dict.fromkeys(result.graph.roots, "the trigger's data"))
    for step in w.walk_steps(workflow.steps):
        if step.name in taken:
            result.report(
                codes.DUPLICATE_STEP,
                f"`{step.name}` is already {taken[step.name]}",
                step.span,
                hint="give every step its own name",
            )
        else:
            taken[step.name] = "a step"


def _respond_wiring(workflow: w.Workflow, result: Validation) -> None:
    trigger = workflow.trigger
    responding = isinstance(trigger, w.WebhookTrigger) and trigger.respond_with_node
    responds = [s for s in w.walk_steps(workflow.steps) if isinstance(s, w.RespondStep)]
    if not responding:
        for step in responds:
            hint = (
                "add `respond with node` to the webhook trigger"
                if isinstance(trigger, w.WebhookTrigger)
                else "only a webhook trigger has a request to answer"
            )
            result.report(
                codes.RESPOND_WITHOUT_WEBHOOK,
                f"`{step.name}` responds, but the trigger is not a webhook that responds with a node",
                step.span,
                hint=hint,
            )
    elif not responds:
        result.report(
            codes.MISSING_RESPOND,
            "the webhook responds with a node, but no step responds",
            trigger.span,
            hint="add a `respond NAME expression` step, or drop `respond with node`",
        )


def _expressions(step: w.Step) -> Iterator[tuple[str, n.Expr]]:
    match step:
        case w.SetStep():
            for f in step.fields:
                yield f.name, f.value
        case w.IfStep():
            yield "condition", step.condition
        case w.SwitchStep():
            for case in step.cases:
                yield "condition", case.condition
        case w.RespondStep():
            yield "body", step.body
        case w.HttpStep():
            for part in step.url.parts:
                if isinstance(part, n.Hole):
                    yield "url", part.expr
            for f in (*step.query, *step.headers, *(step.body or ())):
                yield f.name, f.value
        case w.MergeStep() | w.WaitStep() | w.NodeStep():
            return
        case _:
            assert_never(step)


def _references(step: w.Step, expr: n.Expr, result: Validation) -> bool:
    graph = result.graph
    ok = True
    for name in free_reads(expr):
        if name.name in graph.roots:
            continue
        target = graph.steps.get(name.name)
        if target is None:
            ok = False
            options = sorted(set(graph.steps) | set(graph.roots))
            import difflib  # (only for a misspelt name: not loaded by every check)

            close = difflib.get_close_matches(name.name, options, n=1)
            hint = (
                f"did you mean `{close[0]}`?"
                if close
                else (f"readable here: {', '.join(f'`{o}`' for o in options)}" if options else None)
            )
            result.report(codes.UNKNOWN_STEP, f"no step or trigger data named `{name.name}`", name.span, hint=hint)
        elif not graph.produces_fields(name.name):
            ok = False
            article = "an" if target.kind == "if" else "a"
            result.report(
                codes.NO_OUTPUT,
                f"`{name.name}` is {article} {target.kind} step and produces no fields of its own",
                name.span,
                hint="read the step (or trigger data) before it instead",
            )
        elif name.name == step.name:
            ok = False
            result.report(
                codes.NOT_UPSTREAM,
                f"`{step.name}` cannot read its own output",
                name.span,
                hint="read the fields of an earlier step",
            )
        elif not graph.dominates(name.name, step.name):
            ok = False
            upstream = name.name in ancestors(graph.graph, step.name)
            message = (
                f"`{name.name}` does not run on every path to `{step.name}`"
                if upstream
                else f"`{name.name}` is not upstream of `{step.name}`"
            )
            result.report(
                codes.NOT_UPSTREAM, message, name.span, hint="read only steps that always run before this one"
            )
    return ok


def _fields_exist(expr: n.Expr, result: Validation) -> bool:
    """`step.field` names one of the fields the step has: a `set` step's, or those a `node` or
    `http` step's `returns {...}` declares (`body.field` too: a webhook's `body {...}`), and
    `step.a.b` one that the object declared for `a` has."""
    free = {id(name) for name in free_reads(expr)}
    fields = [node for node in walk(expr) if isinstance(node, n.Field_)]
    inner = {id(node.target) for node in fields}
    ok = True
    for node in fields:
        if id(node) in inner:
            continue  # checked with the chain `a.b.c` it is part of
        chain = [node]
        while isinstance(chain[-1].target, n.Field_):
            chain.append(chain[-1].target)
        root = chain[-1].target
        if isinstance(root, n.Name) and id(root) in free:
            ok = _chain_exists(root.name, chain[::-1], result) and ok
    return ok


def _chain_exists(name: str, chain: list[n.Field_], result: Validation) -> bool:
    """Whether each field of `name.a.b...` (`chain`: the reads of `a`, `b`, ...) is one of those
    known at its level; the first that is not is E0720."""
    target = result.graph.steps.get(name)
    shape = _declared_shape(name, result)
    names = [f.name for f in target.fields] if isinstance(target, w.SetStep) else _names_of(shape)
    for depth, node in enumerate(chain):
        if names is None:
            return True
        if node.name not in names:
            import difflib  # (only for a misspelt name: not loaded by every check)

            close = difflib.get_close_matches(node.name, names, n=1)
            verb = "sets" if isinstance(target, w.SetStep) else "declares"
            owner = ".".join([name, *(read.name for read in chain[:depth])])
            result.report(
                codes.NO_SUCH_FIELD,
                f"`{owner}` {verb} no field `{node.name}`",
                node.span,
                hint=f"did you mean `{close[0]}`?" if close else "its fields: " + ", ".join(f"`{f}`" for f in names),
            )
            return False
        field = shape.field(node.name) if shape is not None else None
        shape = field.type.shape if field is not None else None
        names = _names_of(shape)
    return True


def _names_of(shape: w.Shape | None) -> list[str] | None:
    return None if shape is None else [field.name for field in shape.fields]


def _declared_shape(name: str, result: Validation) -> w.Shape | None:
    """The shape declared for what `name` reads: a step's `returns {...}`, the webhook's `body`."""
    trigger = result.graph.workflow.trigger
    if isinstance(trigger, w.WebhookTrigger) and name == "body" and name not in result.graph.steps:
        return trigger.body
    return result.graph.declared(name)


def _types(step: w.Step, label: str, expr: n.Expr, result: Validation) -> None:
    """Type the expression with the compute checker: each name it reads is an object, of the
    fields and types its declared shape gives where it has one. The n8n JSON (a Set field's
    type, a respond's text or JSON) is written from the types without declarations, so a
    declaration changes the diagnostics only, never what n8n runs."""
    names = sorted({name.name for name in free_reads(expr)})
    checked = check_program(_program(expr, names, {}))
    type_ = checked.result_type if checked.ok else ANY
    declared = {name: known for name in names if (known := _declared_type(name, result)) is not None}
    informed = check_program(_program(expr, names, declared)) if declared else checked
    result.diagnostics.extend(informed.diagnostics)
    if type_ == ANY and isinstance(expr, n.Field_) and isinstance(expr.target, n.Name):
        # `step.field` of an earlier set step: the type that field was given there.
        type_ = result.field_types.get((expr.target.name, expr.name), ANY)
    match step:
        case w.SetStep():
            result.field_types[(step.name, label)] = type_
            if declared and informed.ok and informed.result_type != ANY:
                result.declared_types[(step.name, label)] = informed.result_type
        case w.IfStep() | w.SwitchStep():
            condition = informed.result_type if declared and informed.ok else type_
            if not fits(condition, BOOLEAN):
                result.report(
                    codes.CONDITION_TYPE,
                    f"the condition of `{step.name}` is {condition}, not boolean",
                    expr.span,
                    hint='compare it, e.g. `x > 0` or `x == "yes"`',
                )
        case w.RespondStep():
            result.respond_types[step.name] = type_
        case w.HttpStep() | w.MergeStep() | w.WaitStep() | w.NodeStep():
            return
        case _:
            assert_never(step)


def _declared_type(name: str, result: Validation) -> Type | None:
    """The type declarations give what `name` reads: its declared shape, or a `set` step whose
    fields copy declared ones (its other fields `any`); None: nothing declared reaches it."""
    shape = _declared_shape(name, result)
    if shape is not None:
        return shape_type(shape)
    step = result.graph.steps.get(name)
    if not isinstance(step, w.SetStep) or not any((name, f.name) in result.declared_types for f in step.fields):
        return None
    return record_of(tuple((f.name, result.declared_types.get((name, f.name), ANY)) for f in step.fields))


def _program(expr: n.Expr, names: list[str], declared: dict[str, Type]) -> n.Program:
    """`expr` as a program whose parameters are the names it reads (objects, unless declared)."""
    return n.Program(
        parameters=tuple(n.Param(name=name, type=declared.get(name, OBJECT)) for name in names),
        steps=(n.Return(value=expr, span=expr.span),),
        span=expr.span,
    )


# n8n's field types (those a shape declares) as the compute language's.
FIELD_TYPES: dict[str, Type] = {
    "string": STRING,
    "number": NUMBER,
    "boolean": BOOLEAN,
    "array": ARRAY,
    "object": OBJECT,
    "any": ANY,
}


def shape_type(shape: w.Shape) -> Type:
    """A declared shape as a record type (its objects and lists too)."""
    return record_of(tuple((field.name, _field_type(field.type)) for field in shape.fields))


def _field_type(type_: w.FieldType) -> Type:
    if type_.shape is not None:
        return shape_type(type_.shape)
    if type_.items is not None:
        return array_of(_field_type(type_.items))
    return FIELD_TYPES[type_.name]
