"""The protobuf field numbers the API server decodes request bodies with: extracted from
Kubernetes' Go struct tags (proto_extract), joined with the served schema (proto_fields)."""

import pytest

from k32.apigen import proto_extract, proto_fields
from k32.apigen.schema_table import _emit_proto, build_table
from k32.apigen.source import served_definitions

GO = '''
package v1

type Volume struct {
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	VolumeSource `json:"" protobuf:"bytes,2,opt,name=volumeSource"`
}

type VolumeSource struct {
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty" protobuf:"bytes,1,opt,name=hostPath"`
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty" protobuf:"bytes,2,opt,name=emptyDir"`
}

type ServicePort struct {
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Port int32 `json:"port" protobuf:"varint,3,opt,name=port"`
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
}
'''


def test_extract_reads_tags_inlined_structs_and_omitempty(tmp_path):
    core = tmp_path / "api" / "core" / "v1"
    core.mkdir(parents=True)
    (core / "types.go").write_text(GO)
    for sub in ("discovery/v1", "coordination/v1", "networking/v1"):
        (tmp_path / "api" / sub).mkdir(parents=True)
    for sub in ("pkg/apis/meta/v1", "pkg/runtime", "pkg/util/intstr", "pkg/api/resource"):
        (tmp_path / "am" / sub).mkdir(parents=True)
    got = proto_extract.extract(tmp_path / "api", tmp_path / "am")
    assert got["io.k8s.api.core.v1.ServicePort"] == {
        "name": [1, True, 0],  # non-pointer omitempty: a zero value is dropped
        "port": [3, False, 0],  # no omitempty: Go prints 0
        "appProtocol": [6, False, 0],  # a pointer: present means set, even when empty
    }
    # VolumeSource is embedded: its fields sit in Volume's JSON but in message 2 on the wire.
    assert got["io.k8s.api.core.v1.Volume"] == {
        "name": [1, False, 0],
        "hostPath": [1, False, 2],
        "emptyDir": [2, False, 2],
    }


def test_checked_in_table_has_kubernetes_numbers():
    t = proto_fields.load()
    assert t["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["name"][0] == 1
    assert t["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["labels"][0] == 11
    assert t["io.k8s.api.core.v1.ServiceSpec"]["ports"][0] == 1
    assert t["io.k8s.api.core.v1.ServiceSpec"]["type"][0] == 4
    assert t["io.k8s.api.core.v1.Container"]["env"][0] == 7
    assert t["io.k8s.api.core.v1.Volume"]["configMap"] == [19, False, 2]


def test_every_served_field_has_a_number():
    table, _ = build_table(served_definitions())
    lines = _emit_proto(table)
    entries = [ln for ln in lines if ln.startswith("  {")]
    assert len(entries) == len(table.fields)
    unnumbered = [
        (o, f[0]) for (f, o), ln in zip(zip(table.fields, table.field_owner), entries) if ln.startswith("  {0, ")
    ]
    # Only the envelope's apiVersion/kind and the documented exceptions lack a number.
    assert all(
        name in ("apiVersion", "kind") or (owner, name) in proto_fields.NO_NUMBER for owner, name in unnumbered
    ), unnumbered


def test_missing_number_is_a_clear_error():
    with pytest.raises(proto_fields.ProtoError, match=r"io.k8s.api.core.v1.Pod.bogus: no protobuf field number"):
        proto_fields.field_entry({}, "io.k8s.api.core.v1.Pod", "bogus")
