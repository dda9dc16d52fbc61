"""A PEP 517 build backend for the hcp_plan package made of the standard library only.

pip runs it (`pip install ./python`) without fetching anything: the wheel holds the pure-Python
package hcp_plan, its metadata, and _build_info.py naming the source tree it was built from (so
the installed package finds <tree>/build/hcp-plan). With HCP_PLAN_BUNDLE_BIN=/path/to/hcp-plan
at build time the binary is carried inside the wheel as hcp_plan/bin/hcp-plan.
"""
import base64
import hashlib
import io
import os
import pathlib
import stat
import tarfile
import zipfile

NAME = "hcp_plan"
DIST = "hcp_plan"
VERSION = "0.1.0"
HERE = pathlib.Path(__file__).resolve().parent.parent  # the python/ directory
TAG = "py3-none-any"


def _metadata():
    return (
        "Metadata-Version: 2.1\n"
        f"Name: hcp-plan\nVersion: {VERSION}\n"
        "Summary: Validate and plan Megatron context parallelism from Python with the hcp-plan "
        "binary\nRequires-Python: >=3.9\nLicense: Apache-2.0\n"
    )


def _wheel_file(tag):
    return f"Wheel-Version: 1.0\nGenerator: hcp_plan_backend\nRoot-Is-Purelib: true\nTag: {tag}\n"


def _package_files():
    """(archive name, bytes, mode) of every file the wheel installs."""
    files = []
    for path in sorted((HERE / NAME).rglob("*.py")):
        rel = path.relative_to(HERE).as_posix()
        if rel != f"{NAME}/_build_info.py":
            files.append((rel, path.read_bytes(), 0o644))
    source_tree = HERE.parent
    info = f"# Written by the build backend.\nSOURCE_TREE = {str(source_tree)!r}\n"
    files.append((f"{NAME}/_build_info.py", info.encode(), 0o644))
    bundled = os.environ.get("HCP_PLAN_BUNDLE_BIN")
    if bundled:
        files.append((f"{NAME}/bin/hcp-plan", pathlib.Path(bundled).read_bytes(), 0o755))
    return files


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write(archive, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def _dist_info_files(tag):
    dist_info = f"{DIST}-{VERSION}.dist-info"
    return [
        (f"{dist_info}/METADATA", _metadata().encode(), 0o644),
        (f"{dist_info}/WHEEL", _wheel_file(tag).encode(), 0o644),
    ], f"{dist_info}/RECORD"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    bundled = bool(os.environ.get("HCP_PLAN_BUNDLE_BIN"))
    tag = "py3-none-linux_" + os.uname().machine if bundled else TAG
    name = f"{DIST}-{VERSION}-{tag}.whl"
    files = _package_files()
    meta, record_name = _dist_info_files(tag)
    files += meta
    record = [_record_line(n, d) for n, d, _ in files] + [f"{record_name},,"]
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / name, "w") as archive:
        for n, d, mode in files:
            _write(archive, n, d, mode)
        _write(archive, record_name, ("\n".join(record) + "\n").encode(), 0o644)
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = f"{DIST}-{VERSION}"
    name = f"{base}.tar.gz"
    with tarfile.open(pathlib.Path(sdist_directory) / name, "w:gz") as archive:
        for rel in ["pyproject.toml", "README.md", "_backend/hcp_plan_backend.py"]:
            archive.add(HERE / rel, arcname=f"{base}/{rel}")
        for path in sorted((HERE / NAME).rglob("*.py")):
            archive.add(path, arcname=f"{base}/{path.relative_to(HERE).as_posix()}")
        data = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
