#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: mcpconf contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: mcpconf
short_description: Manage MCP server entries in AI clients' config files with mcpconf
version_added: "0.1.0"
description:
  - Makes the MCP server entries of agent clients' config files (Claude Code, Cursor, VS Code,
    Codex, ...) match an mcpconf manifest, or removes every entry the manifest's owner wrote.
  - Runs the C(mcpconf) binary on the managed host and maps its JSON report to Ansible.
    mcpconf edits only the entries its ledger proves it wrote, keeps every other byte of the
    files, and refuses (writing nothing) when a file cannot be edited safely.
  - I(state=present) runs C(mcpconf apply --yes); I(state=absent) runs C(mcpconf prune --yes),
    which gives back what the owner wrote (a file mcpconf created is removed, an entry it took
    over is restored byte for byte).
  - In check mode nothing is written; I(state=present) runs C(mcpconf plan) (with C(--adopt)
    and C(--take-over) when given), I(state=absent) runs C(mcpconf prune --dry-run).
    C(changed) then says whether the real run would write anything.
  - In diff mode the result holds mcpconf's unified diffs, one per file, with secrets already
    redacted by mcpconf.
  - C(changed) is mcpconf's own C(changed) (a file or the ledger was written, or would be in
    check mode), so a run with nothing to do reports C(ok).
  - A refusal (mcpconf exit 3, for example an entry of the same name that the owner did not
    write), a usage or manifest error (exit 2) and an I/O failure (exit 4) fail the task with
    mcpconf's messages in C(msg), its exit code in C(rc) and its stable error code in C(code).
author:
  - mcpconf contributors
requirements:
  - The C(mcpconf) binary on the managed host.
options:
  manifest:
    description:
      - Path of the manifest (C(mcpconf.toml)) on the managed host.
      - Required with I(state=present). With I(state=absent) it may be left out when I(owner)
        and I(root) are given; mcpconf then prunes what its ledger records for that owner in
        that workspace (and, like C(mcpconf) run in I(root), reads an C(mcpconf.toml) it finds
        from I(root) upward, or C($MCPCONF_MANIFEST)).
    type: path
  state:
    description:
      - C(present) applies the manifest (C(mcpconf apply)).
      - C(absent) removes everything the owner provably wrote (C(mcpconf prune)).
    type: str
    choices: [present, absent]
    default: present
  owner:
    description:
      - The owner to prune, instead of the manifest's C(owner). Only with I(state=absent).
    type: str
  root:
    description:
      - Base of project-scope targets (C(--root)). mcpconf's default is the manifest's
        directory.
    type: path
  home:
    description:
      - Base of user-scope targets (C(--home)). mcpconf's default is C($HOME) of the user the
        module runs as.
    type: path
  state_dir:
    description:
      - Where mcpconf keeps its ledgers (C(--state-dir)). mcpconf's default is
        C($MCPCONF_STATE_DIR), else C($XDG_STATE_HOME/mcpconf), else
        C(~/.local/state/mcpconf).
    type: path
  workspace:
    description:
      - The ledger scope (C(--workspace)). mcpconf's default is the manifest's C(workspace),
        else the canonical I(root).
    type: str
  profile:
    description:
      - The manifest's profile to apply (C(--profile)). mcpconf's default is the manifest's
        C(profile), if any.
    type: str
  adopt:
    description:
      - Record unowned entries that already equal the manifest as the owner's (C(--adopt)).
        Only with I(state=present).
    type: bool
    default: false
  take_over:
    description:
      - Replace another party's entry of each of these names (C(--take-over NAME)); mcpconf
        keeps its exact text, and I(state=absent) gives it back. Only with I(state=present).
    type: list
    elements: str
    default: []
  keep_going:
    description:
      - Refuse per file instead of per run (C(--keep-going)); write every file that can be
        edited safely and leave the others byte-identical. The task still fails when any file
        was refused.
      - In check mode with I(state=present) a refusal fails the check as it fails the real
        run, and C(changed) says whether the files that are not refused would be written
        (C(mcpconf plan) has no per-file mode; its own C(changed) is false when it refuses).
    type: bool
    default: false
  lock_timeout:
    description:
      - Seconds to wait for another writer (C(--lock-timeout)). mcpconf's default is 10.
    type: float
  binary:
    description:
      - The mcpconf executable, a path or a name looked up in C(PATH).
    type: path
    default: mcpconf
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - mcpconf never prints a secret; the diffs and messages it reports are redacted, so the
    task's result is too. References such as C(${TOKEN}) are written as references; set the
    variables where the agents run, not for this task.
  - Environment variables for mcpconf (for example C(MCPCONF_STATE_DIR)) are passed with
    Ansible's C(environment) keyword.
"""

EXAMPLES = r"""
- name: MCP servers of the team in every agent client
  mcpconf.mcpconf.mcpconf:
    manifest: /etc/mcpconf/team.toml

- name: Take over the user's own entry of the same name (prune gives it back)
  mcpconf.mcpconf.mcpconf:
    manifest: /etc/mcpconf/team.toml
    take_over: [github]

- name: Project-scope targets of a checked-out repository, with a profile
  mcpconf.mcpconf.mcpconf:
    manifest: /srv/app/mcpconf.toml
    root: /srv/app
    profile: ci

- name: Remove everything the team's manifest wrote
  mcpconf.mcpconf.mcpconf:
    manifest: /etc/mcpconf/team.toml
    state: absent

- name: Remove what an old owner wrote, without its manifest
  mcpconf.mcpconf.mcpconf:
    state: absent
    owner: old-team
    root: /srv/app
"""

RETURN = r"""
changed:
  description:
    - mcpconf's C(changed); whether a file or the ledger was written (in check mode, would be).
  returned: always
  type: bool
rc:
  description:
    - mcpconf's exit code; 2 a usage or manifest error, 3 a refusal, 4 an I/O failure.
    - 0 on success, also when C(prune --dry-run) (check mode with I(state=absent)) exits 1 to
      say it would change something.
  returned: always
  type: int
  sample: 0
cmd:
  description: The command line that was run.
  returned: always
  type: list
  elements: str
  sample: [mcpconf, apply, --yes, --manifest=/etc/mcpconf/team.toml, --format, json, --color, never]
owner:
  description: The owner mcpconf acted for.
  returned: when mcpconf printed a report
  type: str
  sample: team
files:
  description: Each target file, as mcpconf's JSON report gives it, without its diff (the diffs are in C(diff), in diff mode).
  returned: when mcpconf printed a report
  type: list
  elements: dict
  contains:
    path:
      description: Absolute path of the file.
      type: str
    client:
      description: The client whose file it is.
      type: str
    status:
      description: C(unchanged), C(changed), C(created), C(refused) or C(skipped).
      type: str
    actions:
      description: What happens to each entry (C(op) such as C(add), C(update), C(remove), C(keep), C(conflict); C(server); C(detail)).
      type: list
      elements: dict
    notes:
      description: Things the operator should know about the target (also shown as warnings).
      type: list
      elements: str
errors:
  description: mcpconf's errors, each with C(path), C(code), C(message), C(line) and C(column).
  returned: when mcpconf printed a report
  type: list
  elements: dict
  sample: [{path: /home/u/.cursor/mcp.json, code: conflict, message: "...", line: 1, column: 17}]
code:
  description: The stable code of mcpconf's first error (C(conflict), C(drift), C(parse-error), C(manifest-error), C(lock-timeout), ...).
  returned: failure, when mcpconf reported an error
  type: str
  sample: conflict
diff:
  description: mcpconf's diffs in Ansible's format, one C(prepared) entry per file that changes.
  returned: in diff mode
  type: list
  elements: dict
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native


def find_binary(module, binary):
    if os.sep in binary:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            module.fail_json(msg="mcpconf binary %s is not an executable file" % binary)
        return binary
    return module.get_bin_path(binary, required=True)


def check_params(module):
    p = module.params
    present = p["state"] == "present"
    if present and not p["manifest"]:
        module.fail_json(msg="state=present needs manifest")
    if not present and not p["manifest"] and not (p["owner"] and p["root"]):
        module.fail_json(msg="state=absent needs manifest, or owner and root")
    if present and p["owner"]:
        module.fail_json(msg="owner is for state=absent: apply writes as the manifest's owner")
    if not present and (p["adopt"] or p["take_over"]):
        module.fail_json(msg="adopt and take_over are for state=present")


def build_command(module, binary):
    """The mcpconf command line, and the exit codes that are a success for it."""
    p = module.params
    ok = (0,)
    if p["state"] == "present":
        cmd = [binary, "plan"] if module.check_mode else [binary, "apply", "--yes"]
        if p["adopt"]:
            cmd.append("--adopt")
        cmd += ["--take-over=" + name for name in p["take_over"]]
        if p["keep_going"] and not module.check_mode:
            cmd.append("--keep-going")
    else:
        if module.check_mode:
            # Exit 1: prune would change something, which is what check mode reports.
            cmd, ok = [binary, "prune", "--dry-run"], (0, 1)
        else:
            cmd = [binary, "prune", "--yes"]
        if p["owner"]:
            cmd.append("--owner=" + p["owner"])
        if p["keep_going"]:
            cmd.append("--keep-going")
    for opt in ("manifest", "root", "home", "state_dir", "workspace", "profile"):
        if p[opt] is not None:
            cmd.append("--%s=%s" % (opt.replace("_", "-"), p[opt]))
    if p["lock_timeout"] is not None:
        cmd.append("--lock-timeout=%s" % p["lock_timeout"])
    cmd += ["--format", "json", "--color", "never"]
    return cmd, ok


def error_line(e):
    """One error as mcpconf prints it in text: error[CODE]: PATH:LINE:COLUMN: MESSAGE."""
    where = ""
    if e.get("path"):
        where = "%s:%s:%s: " % (e["path"], e.get("line", 1), e.get("column", 1))
    return "error[%s]: %s%s" % (e.get("code"), where, e.get("message"))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            manifest=dict(type="path"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            owner=dict(type="str"),
            root=dict(type="path"),
            home=dict(type="path"),
            state_dir=dict(type="path"),
            workspace=dict(type="str"),
            profile=dict(type="str"),
            adopt=dict(type="bool", default=False),
            take_over=dict(type="list", elements="str", default=[]),
            keep_going=dict(type="bool", default=False),
            lock_timeout=dict(type="float"),
            binary=dict(type="path", default="mcpconf"),
        ),
        supports_check_mode=True,
    )
    check_params(module)
    cmd, ok = build_command(module, find_binary(module, module.params["binary"]))
    # Without a manifest, mcpconf looks for one from its working directory upward: from root,
    # not from wherever Ansible runs modules.
    cwd = None if module.params["manifest"] else module.params["root"]
    rc, out, err = module.run_command(cmd, cwd=cwd, expand_user_and_vars=False)
    try:
        report = json.loads(out)
        if not isinstance(report, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        module.fail_json(
            msg="mcpconf exited %d without a JSON report (%s): %s" % (rc, to_native(e), err.strip()),
            rc=rc, cmd=cmd, stdout=out, stderr=err,
        )

    files = report.get("files") or []
    errors = report.get("errors") or []
    # The diffs go to Ansible's `diff` (shown with --diff), not into every result.
    diffs = [f.pop("diff", "") for f in files]
    changed = bool(report.get("changed"))
    if module.check_mode and module.params["keep_going"] and rc == 3:
        # `plan` refuses per run, so its `changed` is false; `apply --keep-going` would still
        # write every file that is not refused (or adopt entries in it: a ledger write).
        changed = any(
            f.get("status") in ("changed", "created")
            or any(a.get("op") == "adopt" for a in f.get("actions") or [])
            for f in files
            if f.get("status") != "refused"
        )
    result = dict(
        changed=changed,
        # Ansible fails a result whose rc is not 0: a success reads 0.
        rc=0 if rc in ok else rc,
        cmd=cmd,
        owner=report.get("owner"),
        files=files,
        errors=errors,
    )
    if module._diff:
        result["diff"] = [dict(prepared=d) for d in diffs if d]
    seen = set()
    for f in files:
        for note in f.get("notes") or []:
            if note not in seen:
                seen.add(note)
                module.warn("%s: %s" % (f.get("path"), note))

    if rc not in ok:
        msg = "\n".join(error_line(e) for e in errors)
        if errors:
            result["code"] = errors[0].get("code")
        module.fail_json(msg=msg or err.strip() or "mcpconf exited %d" % rc, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
