"""Windows Agent Arena: everything troupe knows of WAA's tasks.

- `taskfile` and `catalog`: reading a WAA task folder (`<domain>/<stem>`);
- `setup`: a task's `config` and `postconfig` steps through the server's setup endpoints;
- `getters` (with `settings`, `clock`, `explorer`, `paint`, which ask a Windows guest
  through `guest` as WAA's controller does) and `metrics` (with `documents`, `odt`,
  `tables`, `vlc`, `media`, `archives`): the evaluator, from the
  reference semantics of WAA's own client and metric functions; getters run in
  `node.WAATaskSteps.inspect`, metrics in the Evaluator's `checker`;
- `coverage`: what `--list` says can run;
- `node`: the VM actors with WAA's task steps; `suite`: `--suite waa`.

The protocol of a WAA VM's server (the client, and a Linux server answering it)
is an environment, in actors.backends.waa.
"""
