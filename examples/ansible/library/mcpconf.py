#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: make agent clients' MCP config files match an mcpconf manifest.

It runs the mcpconf binary on the managed host and maps its JSON report to Ansible:
`changed` is mcpconf's `changed`, check mode runs `mcpconf plan` (nothing written), diff mode
returns the unified diffs mcpconf prints (secrets already redacted by mcpconf), and a refusal
(exit 3) or I/O failure (exit 4) fails the task with mcpconf's error codes and messages.
"""

from __future__ import annotations

import json

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: mcpconf
short_description: Manage MCP server entries in agent clients' config files with mcpconf
options:
  manifest: {description: Path of the manifest (mcpconf.toml) on the host., required: true, type: path}
  state: {description: "present: apply the manifest; absent: prune everything its owner wrote.", choices: [present, absent], default: present, type: str}
  root: {description: Base of project-scope targets., type: path}
  home: {description: Base of user-scope targets (default the remote user's HOME)., type: path}
  state_dir: {description: Where mcpconf keeps its ledger., type: path}
  adopt: {description: Record unowned entries that already equal the manifest as ours., type: bool, default: false}
  lock_timeout: {description: Seconds to wait for another writer., type: float, default: 10}
  binary: {description: The mcpconf executable., type: path, default: mcpconf}
"""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            manifest=dict(type="path", required=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            root=dict(type="path"),
            home=dict(type="path"),
            state_dir=dict(type="path"),
            adopt=dict(type="bool", default=False),
            lock_timeout=dict(type="float", default=10.0),
            binary=dict(type="path", default="mcpconf"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if module.check_mode and p["state"] == "absent":
        module.exit_json(changed=False, skipped=True,
                         msg="check mode for state=absent is not supported: prune has no dry run")
    if module.check_mode:
        sub = ["plan"]
    elif p["state"] == "present":
        sub = ["apply", "--yes"] + (["--adopt"] if p["adopt"] else [])
    else:
        sub = ["prune", "--yes"]
    cmd = [p["binary"]] + sub + ["-m", p["manifest"], "--format", "json", "--color", "never",
                                 "--lock-timeout", str(p["lock_timeout"])]
    for opt in ("root", "home", "state_dir"):
        if p[opt]:
            cmd += ["--" + opt.replace("_", "-"), p[opt]]
    rc, out, err = module.run_command(cmd)
    try:
        report = json.loads(out)
    except ValueError:
        module.fail_json(msg="mcpconf did not print a JSON report", rc=rc, stdout=out, stderr=err)
    result = dict(changed=bool(report.get("changed")), rc=rc, report=report)
    if module._diff:
        diffs = [f["diff"] for f in report.get("files", []) if f.get("diff")]
        result["diff"] = [dict(prepared=d) for d in diffs]
    if rc != 0:
        errors = report.get("errors", [])
        msg = "; ".join("%s: %s (%s)" % (e.get("path"), e.get("message"), e.get("code")) for e in errors)
        module.fail_json(msg=msg or err or "mcpconf failed", **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
