"""OSWorld: everything troupe knows of OSWorld's tasks.

- `catalog`: reading an `evaluation_examples` folder (`<domain>/<id>`);
- `needs`: what a task needs from outside this machine (files of OSWorld's
  task-file cache, in the layout its harness leaves; the live web; a Google
  account; a GNOME session; VS Code);
- `setup`: a task's `config` and `postconfig` steps as OSWorld's
  SetupController runs them; `getters` and `metrics`: its evaluator's
  functions, with OSWorld's reference semantics; `checker`: `evaluate()`'s
  rules (conj, a getter that finds no file, infeasible tasks);
- `coverage`: what `--list` says can run; `node`: the VM actors with
  OSWorld's task steps; `suite`: `--suite osworld`.

The protocol of OSWorld's in-VM server shares its shape with WAA's; its
client is in actors.backends.waa.
"""
