# SPDX-License-Identifier: MIT
# examples/rules.mk — `make examples`: the report, the pictures (examples/check-report.*, check-example.*)
# and the README's sample output, regenerated from real runs of this build on the disk that holds the tree
# (mk/examples.sh; about two minutes, needs chromium from `make deps`). Commit what it changes.
.PHONY: examples
examples: all
	sh mk/examples.sh report $(BUILD) examples
	sh mk/examples.sh sample $(BUILD) README.md
