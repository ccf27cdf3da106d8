"""The REST paths of the served kinds, as Kubernetes publishes them in its OpenAPI
documents (operation ids, x-kubernetes-action, x-kubernetes-group-version-kind and
the query parameters clients look for, fieldValidation above all)."""

from .kinds import SCALE_DEFINITION, Kind
from .source import REF_PREFIX

_META = REF_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1."
JSON_TYPES = ["application/json", "application/yaml"]
PATCH_TYPES = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
]
WATCH_TYPES = ["application/json", "application/json;stream=watch"]


def _q(name, typ, description, unique=True):
    p = {"name": name, "in": "query", "type": typ, "description": description}
    if unique:
        p["uniqueItems"] = True
    return p


def _path_param(name, description):
    return {
        "name": name,
        "in": "path",
        "required": True,
        "type": "string",
        "uniqueItems": True,
        "description": description,
    }


PRETTY = _q("pretty", "string", "If 'true', then the output is pretty printed.")
DRY_RUN = _q(
    "dryRun",
    "string",
    "When present, indicates that modifications should not be persisted. "
    "Valid values are: - All: all dry run stages will be processed",
)
FIELD_MANAGER = _q("fieldManager", "string", "a name associated with the actor or entity that is making these changes.")
FIELD_VALIDATION = _q(
    "fieldValidation",
    "string",
    "how the server handles unknown or duplicate fields in the request body: Ignore, Warn (the default) or Strict.",
)
FORCE = _q(
    "force", "boolean", "Force is going to \"force\" Apply requests. It must be unset for non-apply patch requests."
)
GRACE = _q("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted.")
PROPAGATION = _q("propagationPolicy", "string", "Whether and how garbage collection will be performed.")
LIST_PARAMS = [
    _q("allowWatchBookmarks", "boolean", "requests watch events with type BOOKMARK."),
    _q("continue", "string", "The continue option should be set when retrieving more results from the server."),
    _q("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."),
    _q("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
    _q("limit", "integer", "limit is a maximum number of responses to return for a list call."),
    _q(
        "resourceVersion",
        "string",
        "resourceVersion sets a constraint on what resource versions a request may be served from.",
    ),
    _q(
        "resourceVersionMatch",
        "string",
        "resourceVersionMatch determines how resourceVersion is applied to list calls.",
    ),
    _q("sendInitialEvents", "boolean", "send synthetic ADDED events for the current state before the watch stream."),
    _q("timeoutSeconds", "integer", "Timeout for the list/watch call."),
    _q(
        "watch",
        "boolean",
        "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    ),
]


def _body(ref):
    return {"name": "body", "in": "body", "required": True, "schema": {"$ref": ref}}


def _ok(ref, codes=("200",)):
    return {
        c: {"description": "OK" if c == "200" else "Created" if c == "201" else "Accepted", "schema": {"$ref": ref}}
        for c in codes
    } | {"401": {"description": "Unauthorized"}}


def _op_id(verb, k: Kind, suffix="", namespaced_path=True):
    group = "".join(p.capitalize() for p in (k.group.split(".")[0] if k.group else "core").split("-"))
    ns = "Namespaced" if k.namespaced and namespaced_path else ""
    return f"{verb}{group}{k.version.capitalize()}{ns}{k.kind}{suffix}"


def _op(k: Kind, verb, action, params, responses, consumes=None, produces=None, suffix="", namespaced_path=True):
    op = {
        "operationId": _op_id(verb, k, suffix, namespaced_path),
        "tags": [k.gv_path.replace("/", "_").replace(".", "_")],
        "produces": produces or JSON_TYPES,
        "schemes": ["https"],
        "parameters": params,
        "responses": responses,
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": k.group, "version": k.version, "kind": k.kind},
    }
    if consumes:
        op["consumes"] = consumes
    return op


def _scale_op(op):
    """A /scale operation reads and writes autoscaling/v1 Scale, not the kind itself."""
    op["x-kubernetes-group-version-kind"] = {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    return op


def _subresource(k: Kind, obj: str, suffix: str, params: list, write: list, wrap=lambda op: op) -> dict:
    """An item's /status or /scale: read, replace and patch of obj, named with suffix."""
    return {
        "parameters": params,
        "get": wrap(_op(k, "read", "get", [], _ok(obj), suffix=suffix)),
        "put": wrap(
            _op(k, "replace", "put", [_body(obj)] + write, _ok(obj, ("200", "201")), consumes=["*/*"], suffix=suffix)
        ),
        "patch": wrap(
            _op(
                k,
                "patch",
                "patch",
                [_body(_META + "Patch")] + write + [FORCE],
                _ok(obj, ("200", "201")),
                consumes=PATCH_TYPES,
                suffix=suffix,
            )
        ),
    }


def kind_paths(k: Kind) -> dict:
    obj = REF_PREFIX + k.definition
    lst = REF_PREFIX + k.definition + "List"
    base = "/" + k.gv_path
    ns_prefix = f"{base}/namespaces/{{namespace}}" if k.namespaced else base
    collection = f"{ns_prefix}/{k.plural}"
    item = f"{collection}/{{name}}"
    name_param = _path_param("name", f"name of the {k.kind}")
    ns_param = (
        [_path_param("namespace", "object name and auth scope, such as for teams and projects")] if k.namespaced else []
    )
    write = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION]
    out = {}
    out[collection] = {
        "parameters": ns_param + [PRETTY],
        "get": _op(k, "list", "list", list(LIST_PARAMS), _ok(lst), produces=JSON_TYPES + WATCH_TYPES[1:]),
        "post": _op(k, "create", "post", [_body(obj)] + write, _ok(obj, ("200", "201", "202")), consumes=["*/*"]),
        "delete": _op(
            k,
            "deleteCollection",
            "deletecollection",
            [_body(_META + "DeleteOptions"), DRY_RUN, GRACE, PROPAGATION] + list(LIST_PARAMS),
            _ok(_META + "Status"),
            consumes=["*/*"],
        ),
    }
    item_ops = {
        "parameters": [name_param] + ns_param + [PRETTY],
        "get": _op(k, "read", "get", [], _ok(obj)),
        "put": _op(k, "replace", "put", [_body(obj)] + write, _ok(obj, ("200", "201")), consumes=["*/*"]),
        "patch": _op(
            k,
            "patch",
            "patch",
            [_body(_META + "Patch")] + write + [FORCE],
            _ok(obj, ("200", "201")),
            consumes=PATCH_TYPES,
        ),
        "delete": _op(
            k,
            "delete",
            "delete",
            [_body(_META + "DeleteOptions"), DRY_RUN, GRACE, PROPAGATION],
            _ok(_META + "Status", ("200", "202")),
            consumes=["*/*"],
        ),
    }
    out[item] = item_ops
    sub_params = [name_param] + ns_param + [PRETTY]
    if k.status:
        out[item + "/status"] = _subresource(k, obj, "Status", sub_params, write)
    if k.scale:
        out[item + "/scale"] = _subresource(k, REF_PREFIX + SCALE_DEFINITION, "Scale", sub_params, write, _scale_op)
    if k.namespaced:
        out[f"{base}/{k.plural}"] = {
            "parameters": [PRETTY],
            "get": _op(
                k,
                "list",
                "list",
                list(LIST_PARAMS),
                _ok(lst),
                produces=JSON_TYPES + WATCH_TYPES[1:],
                suffix="ForAllNamespaces",
                namespaced_path=False,
            ),
        }
    return out
