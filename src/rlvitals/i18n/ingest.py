"""Strings of reading logs: the one-line errors of `rlvitals.ingest` and what `vitals` says about
how a file was opened (decompressed, transcoded, a fallback reader, a user's `--map`).

Keys start with "ingest." (and "reason." for the skip reasons these readers give).
"""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "ingest.err.missing": "{path} does not exist",
        "ingest.err.empty": "{path} is empty",
        "ingest.err.dir": "{path} is a directory with no TensorBoard event files, no W&B run (run-*.wandb), no MLflow run (metrics/, mlflow.db) and no SwanLab run (run-*.swanlab); give a log file",
        "ingest.err.mlflow_none": "{path}: no MLflow run found (looked for a run folder holding metrics/ and "
        "meta.yaml, in the folder, its experiments, and a mlruns/ folder below it, "
        "and for an mlflow.db)",
        "ingest.err.swanlab_none": "{path}: no SwanLab run found (looked for run-*.swanlab in the folder, in its "
        "run folders, and in a swanlog/ folder below it)",
        "ingest.err.wandb_none": "{path}: no W&B run found (looked for run-*.wandb in the folder, in its "
        "offline-run-*/ and run-*/ folders, and in a wandb/ folder below it)",
        "ingest.note.wandb_corrupt": "{n} {kind} chunk(s) failed their checksum: skipped with the rest of their "
        "32 KiB block",
        "ingest.note.wandb_cut": "the last {n} bytes are an unfinished {kind} record (a run still writing, or a "
        "copy cut short): read up to the last whole record",
        "ingest.err.not_regular": "{path} is not a regular file",
        "ingest.err.format_name": "unknown format {name!r}; known formats: {known}",
        "ingest.err.not_lines": "format {name!r} is not line-based; it can only be read whole",
        "ingest.err.write_only": "format {name!r} can be written but not read",
        "ingest.err.no_writer": "format {name!r} has no writer; writable: {writable}",
        "ingest.err.no_stdin": "`-` reads the log from standard input, but nothing is piped in "
        "(e.g. zcat run.log.gz | rlvitals diagnose -)",
        "ingest.err.binary": "{path} is a binary file, not a training log ({bad} of {total} lines hold NUL "
        "or control bytes; formats: see `rlvitals formats`)",
        "ingest.err.not_utf8": "{path} is not UTF-8 text (undecodable byte at offset {offset})",
        "ingest.err.compressed": "{path}: the {kind} data cannot be decompressed ({error})",
        "ingest.err.bomb": "{path}: the {kind} data decompresses to more than {cap}: refused as a decompression "
        "bomb, nothing read (the cap: {ratio}x the file, at least 1 GiB; "
        "RLVITALS_MAX_UNPACKED=20G sets it)",
        "ingest.err.temp_full": "{path}: decompressing the {kind} data into {where} failed after {n} ({error}); "
        "nothing read (set TMPDIR to a folder with more room)",
        "ingest.err.zstd": "reading a .zst file needs the zstandard package: pip install zstandard",
        "ingest.err.unknown": "{path}: no supported log format recognised (tried: {formats}); "
        "use --input-format to choose one",
        "ingest.err.no_metrics": "{path}: read as {format}, but not one metric value was found",
        "ingest.err.no_vitals": "{path}: read as {format}, but none of its {n} numeric keys is a vital "
        "({vitals}); keys seen: {keys}; say which key is which with --map CANON=KEY, "
        "e.g. --map '{canon}={example}'",
        "ingest.err.json": "{path} is not valid JSON ({error})",
        "ingest.err.json_shape": "{path}: a JSON document with no log_history list, and not an array of log dicts",
        "ingest.err.notebook": "{path} is not a readable Jupyter notebook ({error})",
        "ingest.err.notebook_empty": "{path}: the notebook's outputs hold no training metrics (no Trainer "
        "table, no printed log lines); run it and save it with its outputs",
        "ingest.err.map_syntax": "--map takes CANON=KEY (e.g. --map 'reward=Average Reward'), not {arg!r}",
        "ingest.err.map_canon": "--map {canon}=…: {canon!r} is not a metric rlvitals knows (known: {known})",
        "ingest.err.map_key": "--map {canon}={key}: the log has no key {key!r} (keys seen: {keys})",
        "ingest.err.no_run": "run {which} does not exist: {name} holds {n} run(s) (choose 1..{n}, or -1 for the last)",
        "ingest.err.sqlite_open": "{path}: cannot open the SQLite database ({error})",
        "ingest.err.sqlite_table": "{path} is a SQLite database without a `metrics` table (tables: {tables}); "
        "rlvitals reads rlwatch's metrics.db",
        "ingest.err.sqlite_step": "{path}: table `metrics` has no `step` column",
        "ingest.err.parquet_dep": "{path}: reading Parquet needs pyarrow: pip install pyarrow (or rlvitals[parquet])",
        "ingest.err.parquet": "{path} is not a readable Parquet table ({error})",
        "ingest.vit.input": "input",
        "ingest.vit.mapping": "--map",
        "ingest.vit.wandb": "W&B run",
        "ingest.vit.wandb_line": "{id} (project {project}, written by wandb {version}): {history} history records of {records} records",
        "ingest.vit.context": "config",
        "ingest.vit.fallback": "read by the generic fallback reader (`name: number` lines); check each "
        "vital's source key below",
        "ingest.note.decoded": "input decoded: {layers}",
        "ingest.note.cut_short": "the {kind} stream is cut short: read the {n} bytes before the cut",
        "ingest.note.damaged": "the {kind} stream is damaged after {n} bytes: read what came before",
        "ingest.note.nb_table": "read from the Trainer's HTML table in cell {cell}, columns: {columns}",
        "ingest.note.md_table": "read from the Markdown table at line {line}, columns: {columns}",
        "ingest.note.md_holds": "the file holds {n} Markdown tables of a run's steps",
        "ingest.note.nb_table_of": "read from the Trainer's HTML table in cell {cell} ({i} of {n} tables: the one "
        "with the most vitals), columns: {columns}",
        "ingest.note.nb_also_text": "the printed output also reads as {format} ({steps} steps, {vitals} vitals); "
        "the table was used",
        "ingest.note.nb_text": "read from the printed output of the cells ({format})",
        "ingest.note.nb_also_table": "an HTML table with {table} vitals was found too; the printed output has more "
        "({text}) and was used",
        "ingest.note.nb_no_step": "the table has no Step column: the row number is used as the step",
        "ingest.note.gen_next": "generic reader: metrics printed on lines without a step are attached to the next "
        "step line (they come before the first one)",
        "ingest.note.gen_previous": "generic reader: metrics printed on lines without a step are attached to the "
        "step line before them",
        "ingest.note.gen_percent": "values written with % are read as fractions (45% → 0.45)",
        "ingest.note.gen_no_counter": "generic reader found no step counter: the row number is used as the step "
        "(a new row starts when a name repeats)",
        "ingest.note.gen_sparse_counter": "the log's step numbers are on {lines} line(s) while its metrics "
        "fill {rows} rows: they number something else (a checkpoint, a new best, a progress line), so the "
        "rows are read in order and numbered",
        "ingest.note.gen_text_steps": "{n} line(s) with a step number written as {form}, a number that starts "
        "again and again or never moves (a sampled answer's `Step 1: ...`), were read as text, not steps",
        "ingest.note.gen_other_counter": "{n} line(s) with a second step counter written as {form}, whose numbers "
        "disagree with the loop's (an engine's optimizer steps), were read as lines without a step",
        "ingest.note.fallback_from": "the {format} reader found no metric, or one record: read as {reader} instead",
        "ingest.note.mapped": "{canon} from {key}: mapped by the user (--map {canon}={given})",
        "ingest.note.guessed": "{canon} from {key}: the name read as {canon} (if it is not, say which key is with "
        "--map {canon}=KEY)",
        "ingest.note.no_goal": "no reward, accuracy or correctness term is logged: whether the run learns cannot "
        "be judged from these keys (say which key is the goal with --map goal=KEY)",
        "ingest.note.unmapped": "{n} numeric key(s) not read as any metric: {keys}",
        "ingest.note.suggest": "if they are what their names say, read them with: {maps}",
        "ingest.note.goal_eval": "goal: {key}, the eval accuracy (its own cadence)",
        "ingest.note.goal_acc": "goal: {key}, the training accuracy",
        "ingest.note.goal_component": "goal: {key}, a correctness term (ahead of the total reward)",
        "ingest.note.goal_reward": "goal: {key}, the reward (no accuracy, eval accuracy or correctness term "
        "logged; say another with --map goal=KEY)",
        "ingest.note.goal_user": "goal: {key}, chosen by the user (--map goal={given})",
        "ingest.note.positions": "{n} log dicts have no step key: their position in the array is used as the step",
        "ingest.note.columns": "read {n} per-step lists over {steps} steps from the JSON object",
        "ingest.note.columns_positions": "the JSON object has no list of steps: entry i of its {n}-long lists is step i + 1",
        "ingest.note.interleaved": "the step counter went back on {back} of {rows} rows, by a few steps each time: "
        "two writers appending to one file (two runs, or ranks of an async trainer), read as one run; where a step "
        "is logged twice the later row wins",
        "ingest.note.not_split": "the step counter restarted at step <= {max} more than {runs} times: read as one run, not split",
        "ingest.note.folder_holds": "the folder holds {n} {kind} runs",
        "ingest.note.wandb_panel": "a W&B panel export: run {run}, its keys read without the run's name; "
        "the __MIN/__MAX envelope columns set aside",
        "ingest.note.panel_holds": "the W&B panel export holds {n} runs",
        "ingest.note.mlflow_holds": "it holds {n} MLflow runs",
        "ingest.note.sqlite_nulls": "{n} NULL cells of metrics already logged were read as NaN (SQLite stores a NaN as NULL)",
        "ingest.note.sqlite_alert": "rlwatch raised {n} alert on this run (table alerts; not used)",
        "ingest.note.sqlite_alerts": "rlwatch raised {n} alerts on this run (table alerts; not used)",
        "ingest.note.slime_mapped": "slime: steps are rollout ids; {role} lines mapped to rollouts by {way} ({per})",
        "ingest.note.slime_by_order": "the last rollout id printed before each line",
        "ingest.note.slime_per_one": "k = {k} optimizer step per rollout",
        "ingest.note.slime_per_many": "k = {k} optimizer steps per rollout, averaged",
        "ingest.note.slime_train_steps": "slime: steps are optimizer steps (train/step)",
        "ingest.note.slime_rollout_ids": "slime: steps are rollout ids",
        "ingest.note.manifest_unread": "manifest.json could not be read",
        "ingest.note.ranks_left": "rank 0's table read; {n} other rank recording(s) left ({names})",
        "ingest.note.dicts_from": "log dicts read from the document's `{key}` list",
        "ingest.note.evals_from": "evals read from the document's `{key}` list (keys under eval/)",
        "ingest.note.median": "{name} (median {med})",
        "ingest.note.coarse": "printed with {decimals} decimals, so {names} keep(s) at most two significant digits: prime-rl's <output_dir>/metrics.jsonl has them in full",
        "reason.corrupt W&B chunk (bad checksum)": "corrupt W&B chunk (bad checksum)",
        "reason.unfinished W&B record at the end": "unfinished W&B record at the end",
        "reason.W&B history row without metrics": "W&B history row without metrics",
        "reason.malformed W&B record": "malformed W&B record",
        "reason.malformed MLflow metric line": "malformed MLflow metric line",
        "reason.malformed SwanLab record": "malformed SwanLab record",
        "reason.corrupt SwanLab chunk (bad checksum)": "corrupt SwanLab chunk (bad checksum)",
        "reason.unfinished SwanLab record at the end": "unfinished SwanLab record at the end",
        "reason.line with NUL or control bytes": "line with NUL or control bytes",
        "reason.metrics after the last step line": "metrics after the last step line",
        "reason.metrics before the first step line": "metrics before the first step line",
        "reason.step number in text": "step number in text (not the loop's step line)",
        "reason.table row without a step": "table row without a step",
        "reason.table row without metrics": "table row without metrics",
        "reason.log entry that is not a dict": "log entry that is not a dict",
        "reason.log_history entry that is not a dict": "log_history entry that is not a dict",
        "reason.log entry without step": "log entry without step",
        "reason.log entry without metrics": "log entry without metrics",
        "reason.step not an integer": "step not an integer",
        "reason.unreadable step": "unreadable step",
        "reason.value out of range": "value out of range",
        "reason.nested too deep": "nested too deep",
    },
    "zh": {
        "ingest.err.missing": "{path} 不存在",
        "ingest.err.empty": "{path} 是空的",
        "ingest.err.dir": "{path} 是目录，里面没有 TensorBoard 事件文件、W&B 运行（run-*.wandb）、MLflow 运行（metrics/、mlflow.db）或 SwanLab 运行（run-*.swanlab）；请给出一个日志文件",
        "ingest.err.mlflow_none": "{path}：没有找到 MLflow 运行（查找了该目录、其下各实验目录以及其下 mlruns/ 目录中"
        "含 metrics/ 与 meta.yaml 的运行目录，以及 mlflow.db）",
        "ingest.err.swanlab_none": "{path}：没有找到 SwanLab 运行（查找了该目录、其下各运行目录以及其下 swanlog/ 目录中的 "
        "run-*.swanlab）",
        "ingest.err.wandb_none": "{path}：没有找到 W&B 运行（查找了该目录、其下 offline-run-*/ 与 run-*/ 目录、"
        "以及其下 wandb/ 目录中的 run-*.wandb）",
        "ingest.note.wandb_corrupt": "{n} 个 {kind} 数据块校验和不符：连同所在 32 KiB 块的其余部分一起跳过",
        "ingest.note.wandb_cut": "最后 {n} 字节是未写完的 {kind} 记录（运行仍在写入，或文件副本被截断）：读到最后一条完整记录为止",
        "ingest.err.not_regular": "{path} 不是普通文件",
        "ingest.err.format_name": "未知格式 {name!r}；已知格式：{known}",
        "ingest.err.not_lines": "格式 {name!r} 不是按行的格式，只能整份读取",
        "ingest.err.write_only": "格式 {name!r} 只能写出，不能读取",
        "ingest.err.no_writer": "格式 {name!r} 没有写出器；可写出的格式：{writable}",
        "ingest.err.no_stdin": "`-` 表示从标准输入读日志，但没有内容通过管道传入"
        "（例如 zcat run.log.gz | rlvitals diagnose -）",
        "ingest.err.binary": "{path} 是二进制文件，不是训练日志（{total} 行里有 {bad} 行含 NUL 或控制字节；"
        "支持的格式见 `rlvitals formats`）",
        "ingest.err.not_utf8": "{path} 不是 UTF-8 文本（偏移 {offset} 处有无法解码的字节）",
        "ingest.err.compressed": "{path}：{kind} 数据无法解压（{error}）",
        "ingest.err.bomb": "{path}：{kind} 数据解压后超过 {cap}：视为解压炸弹拒绝，未读取任何内容"
        "（上限：文件大小的 {ratio} 倍，至少 1 GiB；RLVITALS_MAX_UNPACKED=20G 可设定）",
        "ingest.err.temp_full": "{path}：把 {kind} 数据解压到 {where} 时在 {n} 之后失败（{error}）；"
        "未读取任何内容（把 TMPDIR 设到空间更大的文件夹）",
        "ingest.err.zstd": "读取 .zst 文件需要 zstandard 包：pip install zstandard",
        "ingest.err.unknown": "{path}：没有认出任何支持的日志格式（试过：{formats}）；用 --input-format 指定一个",
        "ingest.err.no_metrics": "{path}：按 {format} 读取，但一个指标数值也没找到",
        "ingest.err.no_vitals": "{path}：按 {format} 读取，{n} 个数值键里没有一个是体征（{vitals}）；"
        "看到的键：{keys}；用 --map CANON=KEY 指明哪个键是哪个，"
        "例如 --map '{canon}={example}'",
        "ingest.err.json": "{path} 不是合法的 JSON（{error}）",
        "ingest.err.json_shape": "{path}：JSON 文档里没有 log_history 列表，也不是日志字典的数组",
        "ingest.err.notebook": "{path} 不是可读的 Jupyter 笔记本（{error}）",
        "ingest.err.notebook_empty": "{path}：笔记本的输出里没有训练指标（没有 Trainer 表格，也没有打印的日志行）；"
        "请运行后连同输出一起保存",
        "ingest.err.map_syntax": "--map 的写法是 CANON=KEY（例如 --map 'reward=Average Reward'），不是 {arg!r}",
        "ingest.err.map_canon": "--map {canon}=…：{canon!r} 不是 rlvitals 认识的指标（认识的：{known}）",
        "ingest.err.map_key": "--map {canon}={key}：日志里没有键 {key!r}（看到的键：{keys}）",
        "ingest.err.no_run": "第 {which} 次运行不存在：{name} 里有 {n} 次运行（可选 1..{n}，或 -1 表示最后一次）",
        "ingest.err.sqlite_open": "{path}：无法打开 SQLite 数据库（{error}）",
        "ingest.err.sqlite_table": "{path} 是没有 `metrics` 表的 SQLite 数据库（表：{tables}）；"
        "rlvitals 读取的是 rlwatch 的 metrics.db",
        "ingest.err.sqlite_step": "{path}：`metrics` 表没有 `step` 列",
        "ingest.err.parquet_dep": "{path}：读取 Parquet 需要 pyarrow：pip install pyarrow（或 rlvitals[parquet]）",
        "ingest.err.parquet": "{path} 不是可读的 Parquet 表（{error}）",
        "ingest.vit.input": "输入",
        "ingest.vit.mapping": "--map",
        "ingest.vit.wandb": "W&B 运行",
        "ingest.vit.wandb_line": "{id}（项目 {project}，由 wandb {version} 写入）：共 {records} 条记录，其中历史记录 {history} 条",
        "ingest.vit.context": "配置",
        "ingest.vit.fallback": "由通用兜底读取器读取（`名字: 数值` 行）；请逐项核对下面每个体征的来源键",
        "ingest.note.decoded": "输入已解码：{layers}",
        "ingest.note.cut_short": "{kind} 数据流被截断：读取了截断前的 {n} 字节",
        "ingest.note.damaged": "{kind} 数据流在 {n} 字节之后损坏：只读取了之前的内容",
        "ingest.note.nb_table": "读自第 {cell} 个单元格里 Trainer 的 HTML 表格，列：{columns}",
        "ingest.note.md_table": "读自第 {line} 行的 Markdown 表格，列：{columns}",
        "ingest.note.md_holds": "这个文件里有 {n} 张记录训练步的 Markdown 表格",
        "ingest.note.nb_table_of": "读自第 {cell} 个单元格里 Trainer 的 HTML 表格（{n} 个表格中的第 {i} 个：体征最多的那个），"
        "列：{columns}",
        "ingest.note.nb_also_text": "打印输出也能按 {format} 读出（{steps} 步，{vitals} 个体征）；用的是表格",
        "ingest.note.nb_text": "读自单元格的打印输出（{format}）",
        "ingest.note.nb_also_table": "也找到了含 {table} 个体征的 HTML 表格；打印输出的体征更多（{text} 个），用的是打印输出",
        "ingest.note.nb_no_step": "表格没有 Step 列：用行号作为步数",
        "ingest.note.gen_next": "通用读取器：没有步数的行上打印的指标，归到下一条带步数的行（它们出现在第一条之前）",
        "ingest.note.gen_previous": "通用读取器：没有步数的行上打印的指标，归到它们之前那条带步数的行",
        "ingest.note.gen_percent": "带 % 的数值按比例读取（45% → 0.45）",
        "ingest.note.gen_no_counter": "通用读取器没有找到步数计数：用行号作为步数（名字重复出现时开始新的一行）",
        "ingest.note.gen_sparse_counter": "日志里的步数只出现在 {lines} 行上，而指标写了 {rows} 行：这些步数数的是别的东西"
        "（存检查点、新的最好成绩、进度行），所以按顺序给这些行编号来读",
        "ingest.note.gen_text_steps": "{n} 行的步数写作 {form}，且一再从头数起或从不变化（例如采样答案里的 `Step 1: ...`）：按正文读，不当作步数",
        "ingest.note.gen_other_counter": "{n} 行带着第二个步数计数器 {form}，其数字与训练循环的对不上（例如引擎的优化器步数）：按不带步数的行读",
        "ingest.note.fallback_from": "{format} 读取器一个指标也没读到（或只读到一条记录）：改按 {reader} 读取",
        "ingest.note.mapped": "{canon} 来自 {key}：由用户指定（--map {canon}={given}）",
        "ingest.note.guessed": "{canon} 来自 {key}：按名字读作 {canon}（如果不是，用 --map {canon}=KEY 指明）",
        "ingest.note.no_goal": "没有记录奖励、准确率或正确性一项：从这些键判断不了训练是否在学（用 --map goal=KEY 指明哪个键是目标指标）",
        "ingest.note.unmapped": "{n} 个数值键没有被读作任何指标：{keys}",
        "ingest.note.suggest": "如果它们就是名字所说的指标，可以这样读取：{maps}",
        "ingest.note.goal_eval": "目标指标：{key}，评测准确率（按它自己的频率记录）",
        "ingest.note.goal_acc": "目标指标：{key}，训练准确率",
        "ingest.note.goal_component": "目标指标：{key}，奖励中的正确性一项（优先于总奖励）",
        "ingest.note.goal_reward": "目标指标：{key}，奖励（没有记录准确率、评测准确率或正确性一项；可用 --map goal=KEY 指定）",
        "ingest.note.goal_user": "目标指标：{key}，由用户指定（--map goal={given}）",
        "ingest.note.positions": "{n} 个日志字典没有 step 键：用它在数组中的位置作为步数",
        "ingest.note.columns": "从 JSON 对象里读了 {n} 个逐步列表，共 {steps} 步",
        "ingest.note.columns_positions": "JSON 对象里没有步数列表：长度为 {n} 的列表里第 i 项记为第 i + 1 步",
        "ingest.note.interleaved": "step 计数在 {rows} 行中有 {back} 行回退（每次退几步）：两个写入者往同一个文件追加（两次训练，或异步训练的多个 rank），按一次训练读取；同一步记录两次时以后一行为准",
        "ingest.note.not_split": "step 计数在 ≤ {max} 处重新开始超过 {runs} 次：按一次训练读取，不拆分",
        "ingest.note.folder_holds": "文件夹里有 {n} 个 {kind} 运行",
        "ingest.note.wandb_panel": "W&B 面板导出：运行 {run}，键名去掉运行名读取；__MIN/__MAX 包络列不计入",
        "ingest.note.panel_holds": "这份 W&B 面板导出里有 {n} 个运行",
        "ingest.note.mlflow_holds": "其中有 {n} 个 MLflow 运行",
        "ingest.note.sqlite_nulls": "已经记录过的指标有 {n} 个 NULL 单元格，按 NaN 读取（SQLite 把 NaN 存成 NULL）",
        "ingest.note.sqlite_alert": "rlwatch 在这次训练上发出了 {n} 条告警（alerts 表；未使用）",
        "ingest.note.sqlite_alerts": "rlwatch 在这次训练上发出了 {n} 条告警（alerts 表；未使用）",
        "ingest.note.slime_mapped": "slime：step 是 rollout 编号；{role} 行按{way}对应到 rollout（{per}）",
        "ingest.note.slime_by_order": "每行之前最后打印的 rollout 编号",
        "ingest.note.slime_per_one": "每个 rollout k = {k} 个优化步",
        "ingest.note.slime_per_many": "每个 rollout k = {k} 个优化步，取平均",
        "ingest.note.slime_train_steps": "slime：step 是优化步（train/step）",
        "ingest.note.slime_rollout_ids": "slime：step 是 rollout 编号",
        "ingest.note.manifest_unread": "manifest.json 读不了",
        "ingest.note.ranks_left": "读取了 rank 0 的表；另有 {n} 个 rank 的记录未读（{names}）",
        "ingest.note.dicts_from": "日志字典读自文档里的 `{key}` 列表",
        "ingest.note.evals_from": "评测结果读自文档里的 `{key}` 列表（键名前加 eval/）",
        "ingest.note.median": "{name}（中位数 {med}）",
        "ingest.note.coarse": "打印时只保留 {decimals} 位小数，所以 {names} 最多只有两位有效数字：prime-rl 的 <output_dir>/metrics.jsonl 里有完整数值",
        "reason.corrupt W&B chunk (bad checksum)": "W&B 数据块损坏（校验和不符）",
        "reason.unfinished W&B record at the end": "末尾未写完的 W&B 记录",
        "reason.W&B history row without metrics": "没有指标的 W&B 历史记录",
        "reason.malformed W&B record": "无法解析的 W&B 记录",
        "reason.malformed MLflow metric line": "无法解析的 MLflow 指标行",
        "reason.malformed SwanLab record": "无法解析的 SwanLab 记录",
        "reason.corrupt SwanLab chunk (bad checksum)": "SwanLab 数据块损坏（校验和不符）",
        "reason.unfinished SwanLab record at the end": "末尾未写完的 SwanLab 记录",
        "reason.line with NUL or control bytes": "含 NUL 或控制字节的行",
        "reason.metrics after the last step line": "最后一个 step 行之后的指标行",
        "reason.metrics before the first step line": "第一个 step 行之前的指标行",
        "reason.step number in text": "正文里的步数（不是训练循环的 step 行）",
        "reason.table row without a step": "没有 step 的表格行",
        "reason.table row without metrics": "没有指标的表格行",
        "reason.log entry that is not a dict": "不是字典的日志条目",
        "reason.log_history entry that is not a dict": "不是字典的 log_history 条目",
        "reason.log entry without step": "没有 step 的日志条目",
        "reason.log entry without metrics": "没有指标的日志条目",
        "reason.step not an integer": "步数不是整数",
        "reason.unreadable step": "读不出的步数",
        "reason.value out of range": "数值超出 float64 范围",
        "reason.nested too deep": "嵌套过深",
    },
}
