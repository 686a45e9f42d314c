#!/usr/bin/env python3
"""triage_bot.py ONCALL: assigns every new card labelled bug to ONCALL and tells them in the chat."""
import json, subprocess, sys

oncall = sys.argv[1]
watch = subprocess.Popen(["cork", "watch", "--json"], stdout=subprocess.PIPE, text=True)
for line in watch.stdout:  # one change, chat line or presence event per line, live
    change = json.loads(line)
    if change.get("kind") == "card.add" and "bug" in change["changes"]["labels"][1]:
        card = str(change["number"])
        subprocess.run(["cork", "assign", card, oncall])
        subprocess.run(["cork", "say", f"#{card} is a bug: @{oncall} has it"])
