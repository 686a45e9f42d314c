#!/usr/bin/env python3
"""triage_bot.py ONCALL: assigns every new card labelled bug to ONCALL and tells them in the chat."""
import json, signal, subprocess, sys

oncall = sys.argv[1]
for sig in (signal.SIGTERM, signal.SIGINT):  # either one ends the bot through `finally`, which stops cork watch
    signal.signal(sig, lambda *_: sys.exit(0))
watch = subprocess.Popen(["cork", "watch", "--json"], stdout=subprocess.PIPE, text=True)
try:
    for line in watch.stdout:  # one change, chat line or presence event per line, live
        change = json.loads(line)
        if change.get("kind") == "card.add" and "bug" in change["changes"]["labels"][1]:
            card = f"#{change['number']}"  # "#N": a bare number is ambiguous once some card has it as its ref
            subprocess.run(["cork", "assign", card, oncall])
            subprocess.run(["cork", "say", f"{card} is a bug: @{oncall} has it"])
finally:
    watch.terminate()  # else cork watch outlives the bot, still connected
sys.exit(watch.wait())  # cork watch's own status when it ends (4: the bot's access was revoked), for its supervisor
