"""Strings of the lab's screens and commands (闯关), and the words they name things with (verdicts,
failure names, knob directions, shape words), in English and Chinese, with identical keys.

The Chinese follows the lesson's own words (在学 / 作弊 / 废了, 缓升 / 平掉 / 陡增 / 单调偏离); the English
says the same thing plainly.  What the lab teaches (the pairs' questions and rules, the lesson's three
questions, its judgement table, the knobs, the experiments) is the catalog `lab_lesson`; `t()` merges
every catalog, so a key reads the same whichever module holds it.
"""

from __future__ import annotations

_EN: dict[str, str] = {
    # ---- session
    "lab.intro.title": "=== Lab: read your first training curves ===",
    "lab.intro.body": (
        "Six curve sets: judge which are learning, which are cheating, which are already dead.\n"
        "Then four pairs of look-alike logs (pair, diff, hint), then the lesson's three questions.\n"
        "Judge for yourself first, then look.  Type `help` for commands, `goals` for your progress."
    ),
    "lab.intro.resume": "Welcome back: {n}/{total} stages done, score {score}/{max}.",
    "lab.intro.start": "Type `next` to continue.",
    "lab.help": (
        "Commands (short forms in brackets):\n"
        "  next [n]            the next unfinished stage\n"
        "  show N [s]          curve set N (1-6): PNG path + terminal charts\n"
        "  answer V [FAILURE]  judge the set: V = learning, cheating, dead, unstable\n"
        "                      (l/c/d/u); naming the failure earns 3 more points, by id\n"
        "                      or by name in either language: answer dead sync_failure,\n"
        "                      answer cheating reward hacking (Chinese names work too)\n"
        "  pair A [p]          pair A..D side by side\n"
        "  is A1 CAUSE         say what log A1 is, e.g.  is A1 sync_failure\n"
        "                      (the other log is the other cause)\n"
        "  diff                the answer: where the two logs differ, what that rules out\n"
        "  hint                where to look -> the values -> the rule (-2 points each\n"
        "                      before answering)\n"
        "  quiz                the lesson's three questions; answer with 1-4\n"
        "  ref [TOPIC]         the lesson's reference material: healthy, shapes, adv_std,\n"
        "                      table, pairs, plot, summary\n"
        "  knob N              after a failure is named: the knob to turn, and which way\n"
        "  exp [E1]            experiments: turn a knob of a real RL loop, then\n"
        "                      turn N (the setting) and predict N (what the curves do)\n"
        "  goals [g]  score  lang en|zh  help [h]  quit (progress is saved)"
    ),
    "lab.lang.set": "Language: English.",
    "lab.err.internal": "Something went wrong inside the lab ({err}); your progress is safe, carry on.",
    "lab.err.unknown": "Unknown command: {cmd!s}.  Type `help` for the list.",
    "lab.err.lang": "Usage: lang en | lang zh",
    "lab.err.show": "Usage: show N  (N = 1-6), or pair A..D.",
    "lab.err.pair": "Usage: pair A  (pairs A, B, C, D).",
    "lab.err.nothing": "Nothing is open yet: type `next`.",
    "lab.err.verdict": "Judge the set with: answer learning | cheating | dead | unstable [failure]  (or l / c / d / u).",
    "lab.err.failure": (
        "I don't know the failure {word!s}; name it by id or by name in English or Chinese, e.g. entropy_coll"
        "apse, sync, reward hacking, 刷分, length_hacking, KL blow-up (tab completes ids)."
    ),
    "lab.err.is_nopair": "`is` answers a pair: open one first with `pair A`.",
    "lab.err.is": "Usage: is {a} CAUSE   (e.g. is {a} entropy_collapse)",
    "lab.err.cause": "In this pair the cause is either {x} or {y}.",
    "lab.err.diff": "`diff` compares the two logs of a pair: open one with `pair A`.",
    "lab.err.quiz": "Answer with the number of an option, 1-{n}.",
    "lab.state.bad": "Saved progress could not be read ({note}); starting fresh.",
    "lab.state.nosave": "Progress cannot be saved to {path} ({err}); playing on without saving.",
    "lab.state.is_dir": "--state {path} is a directory; give a file path (nothing was changed)",
    "lab.state.special": "--state {path} is not a regular file (a device, FIFO or socket); give a file path "
    "(nothing was changed)",
    "lab.state.not_ours": "--state {path} is not a progress file of rlvitals lab; give another path "
    "(nothing was changed)",
    "lab.state.stuck": "--state {path} is damaged ({why}) and cannot be set aside ({err}); nothing was changed",
    "lab.png": "→ figure: {path}",
    "lab.png.none": "(no PNG: {err}; terminal charts only)",
    "lab.not_logged": "not logged",
    # ---- goals and score
    "lab.goals.title": "Goals of this level:",
    "lab.goals.g1": "  1. Read the training state from the combined shapes of reward, KL, length and entropy: sets judged {done}/{n}, right {ok}",
    "lab.goals.g2": "  2. Say which parameter to change next: pairs told apart {ok}/{n} (done {done}), questions right {qok}/{qn} (done {qdone})",
    "lab.goals.g3": "  3. Look at the curves before changing code: pairs judged before looking at the answer {first}/{n}",
    "lab.score.line": "Score {score}/{max}  (hints taken: {hints})",
    # ---- sets
    "lab.set.title": "--- Curve set {key}/{n}: learning, cheating, or dead? ---",
    "lab.set.label": "set {key}",
    "lab.set.prompt": "Your call: answer learning | cheating | dead [failure]   (hint, if you are stuck)",
    "lab.set.already": "Set {key} is already judged; `answer` shows the explanation again.",
    "lab.already": "Already answered (your first answer counts).  Here is the explanation:",
    "lab.right": "✓ Right. +{points}",
    "lab.partial": "~ The verdict is right, but the failure is {failure} ({fid}). +{points}",
    "lab.wrong": "✗ Not quite: the tool says {verdict}.",
    "lab.verdict.learning": "LEARNING",
    "lab.verdict.cheating": "CHEATING",
    "lab.verdict.dead": "DEAD",
    "lab.verdict.unstable": "UNSTABLE (learning, but the updates are too violent to trust)",
    "lab.ex.tool": "The tool's reading: {verdict}: {name}{onset}",
    "lab.ex.onset": " (from step {step})",
    "lab.ex.info": ", a note (info): worth watching, not a fault",
    "lab.ex.evidence": "what the tool saw: {ev}",
    "lab.ex.ruled": "ruled out {text}",
    "lab.ex.missing": "would decide it: {metrics} (not logged)",
    "lab.ex.samples": "sampled answers: {n} quoted, e.g. “{first}”",
    "lab.ex.knob_plain": "the tool's next knob: {text}",
    "lab.ex.no_knob": "nothing to change: a note (info) is worth watching, not a knob to turn.",
    "lab.ex.healthy": "  Healthy: no finding above info, so nothing to change.",
    # ---- pairs
    "lab.pair.title": "--- Pair {key} ---",
    "lab.pair.prompt": "Which is which? {a} and {b}: one is {x} ({xid}), the other {y} ({yid}).  Say e.g.  is {a} {xid}",
    "lab.pair.see_diff": "Now `diff` shows where the two logs differ and what each difference rules out.",
    "lab.pair.wrong": "✗ The other way round: {a} is {x}, {b} is {y}.",
    "lab.samples.head": "{label}: {n} sampled answers to one prompt (step {step}):",
    "lab.diff.confirm": "`diff` shows the answer.  Judge first with `is …` — or type `diff` again to give this pair up (0 points).",
    "lab.diff.title": "=== Pair {key}: the answer ===",
    "lab.diff.side": "  {label}: {name} — {verdict}",
    "lab.diff.where": "Where the two logs differ:",
    "lab.diff.samples": "    samples    {label}: {distinct} distinct answers out of {n}",
    "lab.diff.rules_out": "What each difference rules out:",
    "lab.diff.healthy": "  {label}: no finding above info: nothing to fix.",
    # ---- hints
    "lab.hint.none": "No more hints for this stage: all three are out.  Time to judge!",
    "lab.hint.cost": "Hint {level}/{max} (-{cost} points on this stage):",
    "lab.hint.free": "Hints (free once answered):",
    "lab.hint.where": "Hint 1: look at {metrics}.",
    "lab.hint.values": "Hint 2: what the values do (shape, and the level of the first → last tenth of the run):",
    "lab.hint.rule": "Hint 3: the rule (the lesson's judgement table):",
    # ---- quiz
    "lab.quiz.head": "--- Question {n}/{total} ---",
    "lab.quiz.prompt": "Your answer: 1-{n}",
    "lab.quiz.wrong": "✗ The answer is {n}.",
    "lab.after.next": "→ `next` goes on to {key}.",
    "lab.after.done": "→ Every stage is done: `exp` for the experiments, `score` for the details, `quit` to leave.",
    "lab.finish": "=== Level complete: {score}/{max} ===",
    "lab.bye": "Progress saved.  Score {score}/{max}.  See you next time.",
    # ---- failure names
    "lab.f.healthy": "healthy",
    "lab.f.entropy_collapse": "entropy collapse",
    "lab.f.sync_failure": "weight-sync failure",
    "lab.f.reward_hacking": "reward hacking",
    "lab.f.length_hacking": "length hacking",
    "lab.f.kl_blowup": "KL blow-up",
    "lab.f.lr_too_high": "learning rate too high",
    "lab.f.batch_noise": "small-batch noise",
    "lab.f.data_too_easy": "data too easy",
    "lab.f.data_too_hard": "data too hard",
    "lab.f.stalled": "stalled",
    "lab.f.numeric_instability": "numeric instability",
    "lab.f.truncation_starvation": "truncation starvation",
    "lab.f.entropy_explosion": "entropy explosion",
    "lab.f.plateau": "plateau",
    "lab.f.not_learning": "not learning (cause undetermined)",
    "lab.f.outlier_step": "outlier step",
    # ---- knob directions and shape words
    "lab.dir.raise": "raise",
    "lab.dir.lower": "lower",
    "lab.dir.enable": "enable",
    "lab.dir.disable": "disable",
    "lab.dir.check": "check",
    "lab.dir.replace": "replace",
    "lab.dir.stop": "stop and",
    "lab.word.rising": "rising",
    "lab.word.falling": "falling",
    "lab.word.flat": "flat",
    "lab.word.spike": "spike",
    "lab.word.to_zero": "approaching 0",
    "lab.word.drift": "drifting",
    "lab.word.oscillating": "oscillating",
    "lab.word.constant": "constant",
    "lab.word.short": "too short",
    # ---- names looked up, the adv_std watch, the knob question, the experiments' screens
    "lab.err.ambiguous": "{word!s} could be {cands}: type a little more of the name.",
    "lab.err.cand": "{fid} ({name})",
    "lab.err.cand_sep": ", ",
    "lab.sep": ", ",
    "lab.ex.watch": "  Keep watching adv_std ({start} → {end}): {band}",
    "lab.ex.watch_missing": (
        "  Keep watching adv_std: it is not logged here, and it is the one vital that falls even in a healthy"
        " run (`ref adv_std`)."
    ),
    "lab.ex.note": "  note (info, nothing to change): {name} — {ev}",
    "lab.knob.ask": "Next knob: for {name}, which would you turn, and which way?  Say `knob N`:",
    "lab.knob.ask_pair": "Next knob: for {label} ({name}), which would you turn, and which way?  Say `knob N`:",
    "lab.knob.right": "✓ {knob} — {m}: that is the knob {use}.",
    "lab.knob.wrong": "✗ {knob} is {use}.",
    "lab.knob.here": "Here it is {name}: {m} → {knob}, {why}.",
    "lab.knob.none": "No knob to choose right now: judge a set or a pair first.",
    "lab.knob.bad": "Say `knob N`, with N from 1 to {n}.",
    "lab.goals.knobs": "     knobs chosen right: {ok}/{done}",
    "lab.intro.ends": "Every start → end here is the mean of the first and of the last tenth of the run, as in every rlvitals report.",
    "lab.intro.figs": "Figures (PNG) are written to {path}",
    "lab.png.nofont": "(the figures' labels are in English: no Chinese font is installed; {hint})",
    "lab.score.given": "{verdict} {name}",
    "lab.exp.list": "Experiments: turn one knob of a real RL loop (GRPO on a toy task), predict the curves, watch them, compare:",
    "lab.exp.how": "Open one with `exp E1`.",
    "lab.exp.head": "--- Experiment {key}: {title} ---",
    "lab.exp.setup": "A healthy GRPO loop on a toy task, {steps} steps.  Turn one knob (`turn N`):",
    "lab.exp.turn_prompt": "Which setting?  `turn 1` or `turn 2`.",
    "lab.exp.turned": "Knob turned: {setting}.",
    "lab.exp.predict_prompt": "Before you look: what will the curves do?  `predict N`:",
    "lab.exp.running": "Running the loop ({steps} steps), step by step:",
    "lab.exp.row": "step {step}",
    "lab.exp.compare": "What happened, against each prediction:",
    "lab.exp.yours": "   ← your prediction",
    "lab.exp.held": "Your prediction held.",
    "lab.exp.missed": "Your prediction did not hold: read the shapes above against it.",
    "lab.exp.none": "No experiment is open: `exp` lists them.",
    "lab.exp.turn_first": "Turn the knob first: `turn 1` or `turn 2`.",
    "lab.exp.bad": "Say a number from 1 to {n}.",
    "lab.goals.exps": "  4. Turn a knob and predict: experiments run {done}/{n}, predictions that held {ok}",
}

_ZH: dict[str, str] = {
    "lab.intro.title": "=== 闯关：读第一次训练曲线 ===",
    "lab.intro.body": (
        "六组训练曲线：判断哪些在学、哪些在作弊、哪些已经废了。\n"
        "然后是容易混的四组配对（pair、diff、hint），最后是本节的三个问题。\n"
        "先自己判断再看。输入 `help` 看命令，`goals` 看目标和进度。"
    ),
    "lab.intro.resume": "欢迎回来：已完成 {n}/{total} 关，得分 {score}/{max}。",
    "lab.intro.start": "输入 `next` 继续。",
    "lab.help": (
        "命令（括号里是简写）：\n"
        "  next [n]            下一个没做完的关\n"
        "  show N [s]          第 N 组曲线（1-6）：PNG 路径 + 终端图\n"
        "  answer V [失效]     判断这一组：V = learning|cheating|dead|unstable（l/c/d/u，\n"
        "                      或 在学/作弊/废了/不稳）；说出失效名再加 3 分，id 或中英文\n"
        "                      名字都行：answer dead entropy_collapse、答 作弊 刷分\n"
        "  pair A [p]          并排看配对 A..D\n"
        "  is A1 原因          说出 A1 是什么，例如  is A1 sync_failure\n"
        "                      （另一份就是另一个原因）\n"
        "  diff                对答案：两份日志哪里不同、每个不同排除了什么\n"
        "  hint                分级提示：看哪里 → 数值 → 规则（答题前每个扣 2 分）\n"
        "  quiz                本节的三个问题，用 1-4 作答\n"
        "  参考 [主题]         课程的参考资料，主题：健康、形状、adv_std、判读表、配对\n"
        "  knob N              说出失效后：该转哪个旋钮、往哪个方向\n"
        "  exp [E1]            实验：在真实 RL 循环里转一个旋钮，再用\n"
        "                      turn N（选设置）和 predict N（预测曲线）\n"
        "  goals [g]  score  lang en|zh  help [h]  quit（进度会保存）"
    ),
    "lab.lang.set": "语言：中文。",
    "lab.err.internal": "闯关内部出了点问题（{err}）；进度没丢，继续吧。",
    "lab.err.unknown": "不认识的命令：{cmd!s}。输入 `help` 看命令列表。",
    "lab.err.lang": "用法：lang en | lang zh",
    "lab.err.show": "用法：show N（N = 1-6），或 pair A..D。",
    "lab.err.pair": "用法：pair A（配对 A、B、C、D）。",
    "lab.err.nothing": "还没打开任何一关：输入 `next`。",
    "lab.err.verdict": "这样判断：answer learning | cheating | dead | unstable [失效]（或 l / c / d / u，在学 / 作弊 / 废了）。",
    "lab.err.failure": (
        "不认识失效名 {word!s}；用 id 或中英文名字都行，例如 熵崩塌、权重同步失效、刷分、长度作弊、KL 跑飞、entropy_collapse、sync（id 可用 Tab 补全）。"
    ),
    "lab.err.is_nopair": "`is` 用来回答配对：先用 `pair A` 打开一组。",
    "lab.err.is": "用法：is {a} 原因（例如 is {a} entropy_collapse）",
    "lab.err.cause": "这一组的原因只可能是 {x} 或 {y}。",
    "lab.err.diff": "`diff` 比较一组配对的两份日志：先用 `pair A` 打开一组。",
    "lab.err.quiz": "用选项的编号作答，1-{n}。",
    "lab.state.bad": "保存的进度读不了（{note}）；从头开始。",
    "lab.state.nosave": "进度无法保存到 {path}（{err}）；继续玩，但不保存。",
    "lab.state.is_dir": "--state {path} 是一个目录；请给一个文件路径（什么都没有改动）",
    "lab.state.special": "--state {path} 不是普通文件（设备、FIFO 或套接字）；请给一个文件路径（什么都没有改动）",
    "lab.state.not_ours": "--state {path} 不是 rlvitals lab 的进度文件；请换一个路径（什么都没有改动）",
    "lab.state.stuck": "--state {path} 已损坏（{why}），也无法移到一旁（{err}）；什么都没有改动",
    "lab.png": "→ 图：{path}",
    "lab.png.none": "（没有 PNG：{err}；只画终端图）",
    "lab.not_logged": "未记录",
    "lab.goals.title": "本关目标：",
    "lab.goals.g1": "  1. 从 reward、KL、长度、熵的组合形状判断训练状态：已判断 {done}/{n} 组，判对 {ok}",
    "lab.goals.g2": "  2. 说出下一步该改哪个参数：配对分清 {ok}/{n}（已做 {done}），问题答对 {qok}/{qn}（已答 {qdone}）",
    "lab.goals.g3": "  3. 先看曲线再改代码：先判断、后对答案的配对 {first}/{n}",
    "lab.score.line": "得分 {score}/{max}（用了 {hints} 个提示）",
    "lab.set.label": "第 {key} 组",
    "lab.set.title": "--- 第 {key}/{n} 组曲线：在学、作弊，还是废了？---",
    "lab.set.prompt": "你的判断：answer learning | cheating | dead [失效]（卡住了就 hint）",
    "lab.set.already": "第 {key} 组已经判断过了；`answer` 会再显示一遍解释。",
    "lab.already": "已经答过了（以第一次回答为准）。解释如下：",
    "lab.right": "✓ 对。+{points}",
    "lab.partial": "~ 判断对了，但失效是 {failure}（{fid}）。+{points}",
    "lab.wrong": "✗ 不对：工具的判断是 {verdict}。",
    "lab.verdict.learning": "在学",
    "lab.verdict.cheating": "在作弊",
    "lab.verdict.dead": "已经废了",
    "lab.verdict.unstable": "不稳（在学，但更新太猛，不可信）",
    "lab.ex.tool": "工具的判读：{verdict}：{name}{onset}",
    "lab.ex.onset": "（从第 {step} 步起）",
    "lab.ex.info": "，只是提示（info）：值得留意，不是故障",
    "lab.ex.evidence": "工具看到的：{ev}",
    "lab.ex.ruled": "排除 {text}",
    "lab.ex.missing": "能下定论的指标：{metrics}（没记录）",
    "lab.ex.samples": "采样原文：引用了 {n} 条，例如「{first}」",
    "lab.ex.knob_plain": "工具给的下一步：{text}",
    "lab.ex.no_knob": "不用改：提示（info）只是值得留意，不是要调的参数。",
    "lab.ex.healthy": "  健康：没有 info 以上的发现，不用改任何东西。",
    "lab.pair.title": "--- 配对 {key} ---",
    "lab.pair.prompt": "哪个是哪个？{a} 和 {b}：一个是{x}（{xid}），另一个是{y}（{yid}）。例如输入  is {a} {xid}",
    "lab.pair.see_diff": "现在用 `diff` 看两份日志哪里不同、每个不同排除了什么。",
    "lab.pair.wrong": "✗ 反了：{a} 是{x}，{b} 是{y}。",
    "lab.samples.head": "{label}：同一个 prompt 的 {n} 条采样（第 {step} 步）：",
    "lab.diff.confirm": "`diff` 会直接给出答案。先用 `is …` 自己判断——或者再输入一次 `diff` 放弃这一组（0 分）。",
    "lab.diff.title": "=== 配对 {key}：答案 ===",
    "lab.diff.side": "  {label}：{name} — {verdict}",
    "lab.diff.where": "两份日志不同的地方：",
    "lab.diff.samples": "    采样       {label}：{n} 条里有 {distinct} 条不同",
    "lab.diff.rules_out": "每个不同排除了什么：",
    "lab.diff.healthy": "  {label}：没有 info 以上的发现：没什么要修的。",
    "lab.hint.none": "这一关的提示用完了（三个都给了）。该你判断了！",
    "lab.hint.cost": "提示 {level}/{max}（本关扣 {cost} 分）：",
    "lab.hint.free": "提示（答完之后免费）：",
    "lab.hint.where": "提示 1：看 {metrics}。",
    "lab.hint.values": "提示 2：这些数值怎么走（形状，以及前十分之一 → 后十分之一的水平）：",
    "lab.hint.rule": "提示 3：规则（本节的判读表）：",
    "lab.quiz.head": "--- 问题 {n}/{total} ---",
    "lab.quiz.prompt": "你的答案：1-{n}",
    "lab.quiz.wrong": "✗ 答案是 {n}。",
    "lab.after.next": "→ `next` 进入 {key}。",
    "lab.after.done": "→ 全部关卡完成：`exp` 做实验，`score` 看明细，`quit` 离开。",
    "lab.finish": "=== 通关：{score}/{max} ===",
    "lab.bye": "进度已保存。得分 {score}/{max}。下次见。",
    "lab.f.healthy": "健康",
    "lab.f.entropy_collapse": "熵崩塌",
    "lab.f.sync_failure": "权重同步失效",
    "lab.f.reward_hacking": "刷分（reward hacking）",
    "lab.f.length_hacking": "长度作弊",
    "lab.f.kl_blowup": "KL 跑飞",
    "lab.f.lr_too_high": "学习率过大",
    "lab.f.batch_noise": "batch 太小的正常噪声",
    "lab.f.data_too_easy": "题目太简单",
    "lab.f.data_too_hard": "题目太难",
    "lab.f.stalled": "停滞",
    "lab.f.numeric_instability": "数值不稳",
    "lab.f.truncation_starvation": "截断饿死",
    "lab.f.entropy_explosion": "熵爆炸",
    "lab.f.plateau": "平台期",
    "lab.f.not_learning": "没在学（原因待定）",
    "lab.f.outlier_step": "单步异常",
    "lab.dir.raise": "调高",
    "lab.dir.lower": "调低",
    "lab.dir.enable": "打开",
    "lab.dir.disable": "关掉",
    "lab.dir.check": "检查",
    "lab.dir.replace": "更换",
    "lab.dir.stop": "停下并",
    "lab.word.rising": "缓升",
    "lab.word.falling": "缓降",
    "lab.word.flat": "平掉",
    "lab.word.spike": "陡增",
    "lab.word.to_zero": "趋近 0",
    "lab.word.drift": "单调偏离",
    "lab.word.oscillating": "剧烈抖动",
    "lab.word.constant": "恒定",
    "lab.word.short": "数据不足",
    "lab.err.ambiguous": "{word!s} 可能是 {cands}：再多打几个字。",
    "lab.err.cand": "{fid}（{name}）",
    "lab.err.cand_sep": "、",
    "lab.sep": "、",
    "lab.ex.watch": "  继续留意 adv_std（{start} → {end}）：{band}",
    "lab.ex.watch_missing": "  继续留意 adv_std：这份日志没记录它，而它是健康训练里也会下降的那一条（`参考 adv_std`）。",
    "lab.ex.note": "  提示（info，不用改）：{name} — {ev}",
    "lab.knob.ask": "下一步改哪个参数：{name}，你会转哪个旋钮、往哪个方向？输入 `knob N`：",
    "lab.knob.ask_pair": "下一步改哪个参数：{label}（{name}），你会转哪个旋钮、往哪个方向？输入 `knob N`：",
    "lab.knob.right": "✓ {knob} —— {m}：这个旋钮正是{use}。",
    "lab.knob.wrong": "✗ {knob}：{use}。",
    "lab.knob.here": "这里是{name}：{m} → {knob}，{why}。",
    "lab.knob.none": "现在没有要选的旋钮：先判断一组曲线或一个配对。",
    "lab.knob.bad": "输入 `knob N`，N 为 1 到 {n}。",
    "lab.goals.knobs": "     旋钮选对：{ok}/{done}",
    "lab.intro.ends": "这里所有「起点 → 终点」都是全程前十分之一与后十分之一的平均值，和 rlvitals 的每份报告一致。",
    "lab.intro.figs": "图（PNG）保存在 {path}",
    "lab.png.nofont": "（图里的文字是英文：本机没有中文字体；{hint}）",
    "lab.score.given": "{verdict} {name}",
    "lab.exp.list": "实验：在真实的 RL 循环（玩具任务上的 GRPO）里转一个旋钮，先预测曲线，再看，最后对照：",
    "lab.exp.how": "用 `exp E1` 打开一个。",
    "lab.exp.head": "--- 实验 {key}：{title} ---",
    "lab.exp.setup": "玩具任务上一个健康的 GRPO 循环，{steps} 步。转一个旋钮（`turn N`）：",
    "lab.exp.turn_prompt": "选哪个？`turn 1` 或 `turn 2`。",
    "lab.exp.turned": "旋钮已转：{setting}。",
    "lab.exp.predict_prompt": "先别看：曲线会怎么走？`predict N`：",
    "lab.exp.running": "开始跑（{steps} 步），一步步看：",
    "lab.exp.row": "第 {step} 步",
    "lab.exp.compare": "实际发生的，对照每个预测：",
    "lab.exp.yours": "   ← 你的预测",
    "lab.exp.held": "你的预测成立。",
    "lab.exp.missed": "你的预测没有成立：对照上面的形状再看一遍。",
    "lab.exp.none": "没有打开的实验：`exp` 列出全部。",
    "lab.exp.turn_first": "先转旋钮：`turn 1` 或 `turn 2`。",
    "lab.exp.bad": "输入 1 到 {n} 之间的数字。",
    "lab.goals.exps": "  4. 转旋钮并预测：实验做了 {done}/{n}，预测成立 {ok}",
}

STRINGS: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}
