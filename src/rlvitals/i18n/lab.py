"""Strings of the lab (闯关), in English and Chinese, with identical keys.

The Chinese follows the lesson's own words (在学 / 作弊 / 废了, 缓升 / 平掉 / 陡增 / 单调偏离, its
judgement table and its three closing questions); the English says the same thing plainly.
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
    "lab.pair.A.q": "Both runs' reward went flat.  One plateau is entropy collapse, the other a weight-sync failure.",
    "lab.pair.B.q": "adv_std falls in both.  In one the data got easy (the model got stronger); in the other the entropy collapsed.",
    "lab.pair.C.q": "Length rises in both.  One is healthy growth (writing more pays), the other a length explosion (length hacking).",
    "lab.pair.D.q": "Both curves shake.  One is the normal noise of a small batch, the other a learning rate that is too high.",
    "lab.pair.A.where": "Hint 1: the flat reward is only the symptom.  Compare entropy and ratio_mean between the two logs.",
    "lab.pair.B.where": "Hint 1: compare entropy and acc, and read the 8 sampled answers under each log.",
    "lab.pair.C.where": "Hint 1: does acc rise together with len?  Look at trunc too.",
    "lab.pair.D.where": "Hint 1: compare clip_frac and gnorm: are the updates themselves violent?",
    "lab.pair.A.rule": (
        "Rule: entropy → 0 with ratio ≡ 1.0 is entropy collapse (the policy went deterministic); "
        "entropy normal but ratio drifting away from 1 is a weight-sync failure: the normal "
        "entropy/adv_std rule out collapse and the data side, so the problem is the sync."
    ),
    "lab.pair.B.rule": (
        "Rule: normal entropy (≈1.4) and 8 answers that differ but are all right = the data got easy "
        "(acc high) → harder data / dynamic sampling.  Entropy → 0, 8 nearly identical answers, acc "
        "stuck mid-way = entropy collapse → raise temperature / roll back."
    ),
    "lab.pair.C.rule": (
        "Rule: len rising together with acc = writing more carefully pays (healthy).  len rising while "
        "acc stays flat, with truncation climbing = length hacking → overlong penalty, check trunc."
    ),
    "lab.pair.D.rule": (
        "Rule: clip_frac a few % and steady gnorm = observation noise of a small batch (a bigger batch "
        "smooths it; nothing is broken).  clip_frac > 20% and gnorm high = each update is too violent "
        "→ lower the learning rate."
    ),
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
    "lab.quiz.Q1.q": (
        "Both logs' reward went flat.  One has entropy={e1}, ratio={r1}; the other entropy={e2}, ratio={r2}. "
        " What is each?"
    ),
    "lab.quiz.Q1.o1": "Both converged: a flat reward means training is done.",
    "lab.quiz.Q1.o2": "The first is entropy collapse, the second a weight-sync failure.",
    "lab.quiz.Q1.o3": "The first is a weight-sync failure, the second entropy collapse.",
    "lab.quiz.Q1.o4": "Both are entropy collapse; the second one just started later.",
    "lab.quiz.Q1.why": (
        "Why: entropy {ce} ≈ 0 means the policy went deterministic: collapse; its ratio {cr} rules out a sync"
        " problem.  The other keeps entropy {se} (normal: rules out collapse), but ratio {sr} is far from 1: "
        "the rollout engine samples with stale weights.  Collapse → raise temperature, clip-higher (ε_high 0."
        "28) or roll back; sync → fix the weight sync (a bug, not a hyperparameter)."
    ),
    "lab.quiz.Q1.hint": "Hint: pair A's distinction.  Which number is near 0, and which should be exactly 1?",
    "lab.quiz.Q2.q": 'adv_std fell to {adv}.  How do you tell "the model got stronger" from "entropy collapse"?',
    "lab.quiz.Q2.o1": "Look at reward: if it still rises, the model got stronger.",
    "lab.quiz.Q2.o2": "Lower the learning rate and see whether adv_std comes back.",
    "lab.quiz.Q2.o3": "Look at KL: a large KL means collapse.",
    "lab.quiz.Q2.o4": "Look at entropy and at the 8 sampled answers of one group.",
    "lab.quiz.Q2.why": (
        "Why: both make adv_std fall, for opposite reasons.  Entropy normal (≈1.4), answers different "
        "but all right, acc high → the data got easy: harder data or dynamic sampling.  Entropy → 0, "
        "8 nearly identical answers, acc stuck → collapse: raise temperature / roll back.  "
        "The lesson calls this its most practical distinction."
    ),
    "lab.quiz.Q2.hint": "Hint: pair B's distinction.  What did you compare under the two logs?",
    "lab.quiz.Q3.q": (
        "Both runs' curves shake hard.  One: clip={c1} / gnorm={g1} / effective batch {b1}; the other: clip={"
        "c2} / gnorm={g2} / effective batch {b2}.  Which needs fixing, and how?"
    ),
    "lab.quiz.Q3.o1": "The second: lower the learning rate.  The first is only small-batch noise.",
    "lab.quiz.Q3.o2": "The first: a batch of {b1} is broken; the second is fine because its batch is bigger.",
    "lab.quiz.Q3.o3": "Both: lower the learning rate of both runs.",
    "lab.quiz.Q3.o4": "Neither: shaking curves are always noise.",
    "lab.quiz.Q3.why": (
        "Why: the first shakes because {b1} prompts a step make a noisy estimate; its clip {c1p} and gnorm {g"
        "1} are normal, which rules out violent updates (a bigger batch would smooth it).  The second shakes "
        "with a batch of {b2}, so it is not noise: clip {c2p} (> 20%) and gnorm {g2} say each step is too big"
        " → lower the learning rate."
    ),
    "lab.quiz.Q3.hint": "Hint: pair D's distinction.  Which run's clip and gnorm are abnormal?",
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
    # ---- the lesson's judgement table, one row per metric
    "lab.rule.reward": "healthy: slow rise · flat = not learning; a sudden jump = maybe gaming the reward",
    "lab.rule.acc": "healthy: moves with reward · diverging from reward = reward hacking",
    "lab.rule.entropy": "healthy: slow fall, far from 0 · → 0 = entropy collapse; rising = maybe KL running away",
    "lab.rule.kl": "healthy: slow rise · a steep jump = running away",
    "lab.rule.adv_std": "healthy: 0.8–1.2 · → 0 = no difference within groups (entropy says why); < 0.2 = training has stopped",
    "lab.rule.clip_frac": "healthy: a few % · > 20% = each step too violent: lower the learning rate",
    "lab.rule.ratio_mean": "healthy: constant ≈ 1.0 · drifting one way = the weights are not synced",
    "lab.rule.len": "healthy: stable or rising with acc · rising while acc does not = length hacking (check trunc)",
    "lab.rule.gnorm": "healthy: steady · spikes or a steady climb = updates too big, or a precision problem",
    "lab.rule.trunc": "healthy: low · high (> 30%) = answers cut at the length cap, zero reward variance",
    "lab.rule.loss": "the policy loss of GRPO says little on its own: read it beside reward and gnorm",
    "lab.rule.lr": "the schedule you set: check it matches what you meant",
    "lab.rule.val_acc": "healthy: rises with acc · falling while acc rises = overfitting or hacking",
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
    "lab.band.b1": "0.8–1.2, healthy: enough difference within groups; carry on.",
    "lab.band.b2": (
        "0.5–0.8, normal late in a run: returns are starting to diminish; keep an eye on it (if it keeps fall"
        "ing: harder data or dynamic sampling)."
    ),
    "lab.band.b3": (
        "0.3–0.5 or lower, many groups have degenerated and efficiency drops clearly: harder data / dynamic sampling."
    ),
    "lab.band.b4": "< 0.2, training has effectively stopped: stop, don't burn GPU hours.",
    "lab.quiz.Q2.run": "This question's run: adv_std {adv}, entropy {ent}, acc {acc} → {name}.",
    "lab.whynot.learning.cheating": "Why not learning: {m} — a learning run's acc rises together with its reward ({r}).",
    "lab.whynot.learning.dead": "Why not learning: {m} — the goal does not improve, and a learning run's does.",
    "lab.whynot.cheating.learning": "Why not cheating: {m} moves together with {r}: no divergence, the gain is real.",
    "lab.whynot.cheating.dead": "Why not cheating: {m} — nothing is climbing, so nothing is being gamed (cheating = reward rises while acc does not).",
    "lab.whynot.dead.learning": "Why not dead: {m} — the goal improves; a dead run's goal does not.",
    "lab.whynot.dead.cheating": "Why not dead: {m} — still climbing, so the run has not stopped; what is wrong is that {a} does not follow.",
    "lab.whynot.unstable": "Why not unstable: {m}, {g} — the updates are calm (unstable = clip_frac above 20% and a large gnorm).",
    "lab.whynot.to_unstable": "What decides it: {m}, {g} — each update is too violent: unstable.",
    "lab.whynot.cause": "Why {label} is not {name}: {m} — {why}.",
    "lab.whynot.c.entropy_collapse": "a collapse takes entropy toward 0",
    "lab.whynot.c.sync_failure": "a broken sync drifts ratio_mean away from 1",
    "lab.whynot.c.data_too_easy": "data that got easy keeps entropy normal (about 1.4)",
    "lab.whynot.c.healthy": "healthy growth brings acc up together with len",
    "lab.whynot.c.length_hacking": "length hacking is len rising while acc does not",
    "lab.whynot.c.batch_noise": "small-batch noise leaves clip_frac at a few percent and gnorm steady",
    "lab.whynot.c.lr_too_high": "a learning rate that is too high pushes clip_frac past 20%",
    "lab.whynot.c.reward_hacking": "reward hacking is reward climbing while acc stays flat or falls",
    "lab.whynot.c.kl_blowup": "a KL blow-up makes kl jump by orders of magnitude",
    "lab.whynot.c.data_too_hard": "data that is too hard keeps acc near 0",
    "lab.whynot.c.stalled": "a stalled run's reward does not move at all",
    "lab.whynot.c.numeric_instability": "numeric instability shows as NaN or inf and an exploding gnorm",
    "lab.whynot.c.truncation_starvation": "truncation starvation cuts most answers at the cap (trunc high)",
    "lab.whynot.c.entropy_explosion": "an entropy explosion sends entropy up, not down",
    "lab.whynot.c.plateau": "a plateau has learned first: acc rose, then levelled off",
    "lab.whynot.c.outlier_step": "an outlier is one step off, then back",
    "lab.whynot.c.not_learning": "not learning means the goal does not improve",
    "lab.knob.lr_down": "lower the learning rate",
    "lab.knob.lr_down.for": "for updates that are too violent (clip_frac above 20%, a large gnorm)",
    "lab.knob.temperature_up": "raise the temperature / clip-higher (or roll back)",
    "lab.knob.temperature_up.for": "for a policy that stopped exploring (entropy approaching 0)",
    "lab.knob.fix_sync": "fix the weight sync (compare rollout and trainer log-probs)",
    "lab.knob.fix_sync.for": "for rollouts sampled with stale weights (ratio_mean drifting from 1)",
    "lab.knob.fix_reward": "tie the reward to the verifier (drop the exploited term)",
    "lab.knob.fix_reward.for": "for a reward that pays without solving (reward up, acc not)",
    "lab.knob.length_penalty": "penalise overlong answers (and check the length cap and trunc)",
    "lab.knob.length_penalty.for": "for length that earns reward without accuracy (len up, acc flat)",
    "lab.knob.harder_data": "harder data / dynamic sampling",
    "lab.knob.harder_data.for": "for groups that are all right and carry no advantage (adv_std low, entropy normal)",
    "lab.knob.bigger_batch": "a bigger batch",
    "lab.knob.bigger_batch.for": "for a noisy estimate (jitter while clip_frac and gnorm are calm)",
    "lab.knob.keep_going": "nothing: keep going",
    "lab.knob.keep_going.for": "for a run that is fine (noise is not a fault)",
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
    "lab.quiz.Q1.not1": "Not 1: entropy {ce} (≈ 0) in one log and ratio {sr} (far from 1) in the other are not a calm convergence: both runs are broken.",
    "lab.quiz.Q1.not2": "Not that order: the log with entropy {ce} (≈ 0, ratio {cr}) is the collapse; the one with ratio {sr} is the sync failure.",
    "lab.quiz.Q1.not3": "Not that order: the log with entropy {ce} (≈ 0, ratio {cr}) is the collapse; the one with ratio {sr} is the sync failure.",
    "lab.quiz.Q1.not4": "Not 4: the log with entropy {se} did not collapse (its entropy is normal), and its ratio {sr} is far from 1.",
    "lab.quiz.Q2.not1": "Not 1: reward can still rise in both cases, so it does not separate them; entropy does (here {ent}).",
    "lab.quiz.Q2.not2": "Not 2: the learning rate does not make groups all alike; changing it tells you nothing about why adv_std is {adv}.",
    "lab.quiz.Q2.not3": "Not 3: KL creeps up slowly in both, so it does not separate them; entropy and the 8 samples do.",
    "lab.quiz.Q2.not4": "Not 4: entropy and the 8 sampled answers are exactly what separates the two.",
    "lab.quiz.Q3.not1": "Not 1: the second run's clip {c2p} and gnorm {g2} are the abnormal ones.",
    "lab.quiz.Q3.not2": "Not 2: the first run's clip {c1p} and gnorm {g1} are normal: its shaking is only the noise of a batch of {b1}.",
    "lab.quiz.Q3.not3": "Not 3: the first run's updates are calm (clip {c1p}, gnorm {g1}); lowering its learning rate only slows it down.",
    "lab.quiz.Q3.not4": "Not 4: the second run's clip {c2p} (above 20%) and gnorm {g2} say each step is too big: that is not noise.",
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
    "lab.exp.E1.title": "pair A in a real loop: two ways for reward to go flat",
    "lab.exp.E1.s1": "stale_from = 5: the rollout engine stops receiving new weights from step 5",
    "lab.exp.E1.s2": "temperature 1.0 → 0.4 (with a per-token clip of 0.2 on both sides, KL 0.001, a 10× learning rate, a correctness-only reward)",
    "lab.exp.E1.lesson": "The lesson: a flat reward is only the symptom; ratio_mean points at the sync, entropy at a collapse.",
    "lab.exp.E2.title": "pair B in a real loop: two ways for adv_std to fall",
    "lab.exp.E2.s1": "need_median 28 → 1: every prompt needs one right step (easy data), a correctness-only reward",
    "lab.exp.E2.s2": "temperature 1.0 → 0.4 (with a per-token clip of 0.2 on both sides, KL 0.001, a 10× learning rate, a correctness-only reward)",
    "lab.exp.E2.lesson": "The lesson: adv_std falls in both; entropy (and the 8 samples) says which: normal = easy data, toward 0 = collapse.",
    "lab.exp.E3.title": "pair C in a real loop: answers get longer",
    "lab.exp.E3.s1": "len_bonus 0 → 3 from step 5: a length term pays 3 × len/512",
    "lab.exp.E3.s2": "leave the reward alone (the control run)",
    "lab.exp.E3.lesson": "The lesson: len rising is healthy only when acc rises with it; check trunc.",
    "lab.exp.E4.title": "pair D in a real loop: curves that shake",
    "lab.exp.E4.s1": "lr 0.02 → 0.5 from step 5 (25×)",
    "lab.exp.E4.s2": "batch 64 → 4 prompts a step",
    "lab.exp.E4.lesson": "The lesson: jitter with calm clip_frac and gnorm is noise (a bigger batch smooths it); clip_frac past 20% means lower the learning rate.",
    "lab.exp.E5.title": "reward hacking in a real loop: a lenient verifier",
    "lab.exp.E5.s1": "hack_bonus 0 → 1.3: the verifier pays 1.3 for an answer that lists 8 answer markers",
    "lab.exp.E5.s2": "the strict verifier (the control run)",
    "lab.exp.E5.lesson": "The lesson: acc diverging from reward is reward hacking; read 20 high-reward samples, then tie the reward to the verifier.",
    "lab.claim.ratio_drifts": "ratio_mean drifts away from 1 while entropy stays normal",
    "lab.claim.entropy_to_zero": "entropy goes toward 0 while ratio_mean stays at 1",
    "lab.claim.stays_healthy": "nothing breaks: entropy stays normal and ratio_mean stays at 1",
    "lab.claim.adv_low_entropy_normal": "adv_std falls below 0.5 while entropy stays normal",
    "lab.claim.adv_low_entropy_zero": "adv_std falls below 0.5 and entropy goes toward 0",
    "lab.claim.adv_stays": "adv_std stays up (0.6 or more)",
    "lab.claim.len_up_acc_not": "len rises while acc does not",
    "lab.claim.len_up_acc_up": "len rises and acc rises with it",
    "lab.claim.len_stays": "len does not rise",
    "lab.claim.jitter_clip_high": "clip_frac climbs past 20% (each update too big)",
    "lab.claim.jitter_clip_calm": "reward jitters hard while clip_frac stays under 20%",
    "lab.claim.nothing_changes": "nothing visible changes: reward calm, clip_frac under 20%",
    "lab.claim.reward_up_acc_not": "reward rises while acc stays flat or falls",
    "lab.claim.reward_acc_up": "reward and acc rise together",
    "lab.claim.reward_down": "reward falls",
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
    "lab.pair.A.q": "两份日志的 reward 都平掉了。一份是熵崩塌导致的平，另一份是权重同步失效导致的平。",
    "lab.pair.B.q": "两份的 adv_std 都在降。一份是题目变简单了（模型变强了），另一份是熵崩塌。",
    "lab.pair.C.q": "两份的长度都在涨。一份是正常变长（写详细带来收益），另一份是长度爆炸（长度作弊）。",
    "lab.pair.D.q": "两份的曲线都在剧烈抖动。一份是 batch 太小的正常噪声，另一份是学习率过大。",
    "lab.pair.A.where": "提示 1：reward 平只是症状。比较两份日志的 entropy 和 ratio_mean。",
    "lab.pair.B.where": "提示 1：比较 entropy 和 acc，再读每份日志下面的 8 条采样原文。",
    "lab.pair.C.where": "提示 1：acc 有没有跟着 len 一起涨？再看看 trunc。",
    "lab.pair.D.where": "提示 1：比较 clip_frac 和 gnorm：更新本身猛不猛？",
    "lab.pair.A.rule": (
        "规则：entropy 趋近 0 而 ratio 恒为 1.0 = 熵崩塌（策略变成确定性的）；entropy 正常但 ratio 单调偏离 1 "
        "= 权重同步失效：正常的 entropy/adv_std 排除了熵崩塌和数据侧 → 问题在同步。"
    ),
    "lab.pair.B.rule": (
        "规则：entropy 正常（1.4 左右）、8 条采样内容不同只是都对了 = 题目变简单（acc 高）→ 换难题 / 动态采样。"
        "entropy 趋近 0、8 条几乎一样、acc 卡在中等值 = 熵崩塌 → 提 temperature / 回滚。"
    ),
    "lab.pair.C.rule": (
        "规则：len 与 acc 同向上涨 = 写详细带来更高正确率（健康）。len 涨而 acc 不涨、trunc 跟着涨 "
        "= 长度作弊 → 加超长惩罚，配合 trunc 看。"
    ),
    "lab.pair.D.rule": (
        "规则：clip_frac 几个百分点、gnorm 平稳 = batch 太小的观测噪声（加大 batch 就平滑了，没坏）。"
        "clip_frac > 20%、gnorm 高 = 单步太猛 → 降学习率。"
    ),
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
    "lab.quiz.Q1.q": "两份日志的 reward 都平掉了。一份 entropy={e1}、ratio={r1}；另一份 entropy={e2}、ratio={r2}。分别是什么？",
    "lab.quiz.Q1.o1": "都收敛了：reward 平了说明训练完成。",
    "lab.quiz.Q1.o2": "第一份是熵崩塌，第二份是权重同步失效。",
    "lab.quiz.Q1.o3": "第一份是权重同步失效，第二份是熵崩塌。",
    "lab.quiz.Q1.o4": "都是熵崩塌，只是第二份开始得晚。",
    "lab.quiz.Q1.why": (
        "解释：entropy {ce} ≈ 0，策略变成确定性的：熵崩塌；它的 ratio {cr} 排除了同步问题。另一份 entropy {se} 正常（排除熵崩塌），但 ratio {sr} 远离 1："
        "推理引擎在用旧权重采样。熵崩塌 → 提 temperature、clip-higher（ε_high 0.28）或回滚；同步失效 → 修权重同步（是 bug，不是超参）。"
    ),
    "lab.quiz.Q1.hint": "提示：配对 A 练的那种区分。哪个数趋近 0，哪个数本该恒为 1？",
    "lab.quiz.Q2.q": "`adv_std` 降到 {adv}。怎么判断是「模型变强了」还是「熵崩塌」？",
    "lab.quiz.Q2.o1": "看 reward：还在涨就是模型变强了。",
    "lab.quiz.Q2.o2": "降学习率，看 adv_std 能不能回来。",
    "lab.quiz.Q2.o3": "看 KL：KL 大就是熵崩塌。",
    "lab.quiz.Q2.o4": "看 entropy 和同一组的 8 条采样原文。",
    "lab.quiz.Q2.why": (
        "解释：两者都让 adv_std 降，但原因相反。entropy 正常（1.4 左右）、采样内容不同只是都对了、acc 高 → "
        "题目变简单：换难题或动态采样。entropy 趋近 0、8 条几乎一样、acc 卡住 → 熵崩塌：提 temperature / 回滚。"
        "这是本节最实用的一条辨别。"
    ),
    "lab.quiz.Q2.hint": "提示：配对 B 练的那种区分。你在两份日志下面比较了什么？",
    "lab.quiz.Q3.q": (
        "两份日志的曲线都剧烈抖动。一份 clip={c1} / gnorm={g1} / 有效 batch {b1}；另一份 clip={c2} / gnorm={g2} / 有效 batch {b2}。哪个"
        "要修，修什么？"
    ),
    "lab.quiz.Q3.o1": "第二份：降学习率。第一份只是 batch 太小的噪声。",
    "lab.quiz.Q3.o2": "第一份：batch {b1} 坏了；第二份 batch 大，没问题。",
    "lab.quiz.Q3.o3": "两份都要修：都降学习率。",
    "lab.quiz.Q3.o4": "都不用修：曲线抖都是噪声。",
    "lab.quiz.Q3.why": (
        "解释：第一份抖是因为每步只有 {b1} 个 prompt，估计本身噪声大；clip {c1p}、gnorm {g1} 都正常，排除了更新震荡（加大 batch 就平滑了）。第二份 batch {b2}"
        " 还在抖，就不是噪声：clip {c2p}（> 20%）、gnorm {g2} 说明单步太猛 → 降学习率。"
    ),
    "lab.quiz.Q3.hint": "提示：配对 D 练的那种区分。哪一份的 clip 和 gnorm 不正常？",
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
    "lab.rule.reward": "健康：缓升 · 平 = 没学；暴涨 = 可能在刷分",
    "lab.rule.acc": "健康：与 reward 同向 · 与 reward 背离 = reward hacking",
    "lab.rule.entropy": "健康：缓降，远离 0 · 趋近 0 = 熵崩塌；上升 = 可能 KL 跑飞",
    "lab.rule.kl": "健康：缓升 · 陡增 = 跑飞",
    "lab.rule.adv_std": "健康：0.8 ~ 1.2 · 趋近 0 = 组内没差异（成因看 entropy）；< 0.2 = 训练实质已停",
    "lab.rule.clip_frac": "健康：几个百分点 · > 20% = 单步太猛，降学习率",
    "lab.rule.ratio_mean": "健康：恒 ≈ 1.0 · 单调偏离 = 权重没同步",
    "lab.rule.len": "健康：稳定或与 acc 同向 · 涨而 acc 不涨 = 长度作弊（配合 trunc 看）",
    "lab.rule.gnorm": "健康：平稳 · 尖峰或持续上升 = 更新太大，或精度问题",
    "lab.rule.trunc": "健康：低 · 高（> 30%）= 回答被长度上限截断，组内 reward 没差异",
    "lab.rule.loss": "GRPO 的 policy loss 单看说明不了什么：和 reward、gnorm 放在一起读",
    "lab.rule.lr": "你设定的学习率日程：核对一下是不是你想要的",
    "lab.rule.val_acc": "健康：与 acc 同向 · acc 涨而它降 = 过拟合或作弊",
    "lab.err.ambiguous": "{word!s} 可能是 {cands}：再多打几个字。",
    "lab.err.cand": "{fid}（{name}）",
    "lab.err.cand_sep": "、",
    "lab.sep": "、",
    "lab.ex.watch": "  继续留意 adv_std（{start} → {end}）：{band}",
    "lab.ex.watch_missing": "  继续留意 adv_std：这份日志没记录它，而它是健康训练里也会下降的那一条（`参考 adv_std`）。",
    "lab.ex.note": "  提示（info，不用改）：{name} — {ev}",
    "lab.band.b1": "0.8 ~ 1.2，健康，组内差异充足：继续。",
    "lab.band.b2": "0.5 ~ 0.8，后期正常，收益开始递减：留意（再往下掉就换难题 / 上动态采样）。",
    "lab.band.b3": "0.3 ~ 0.5 或更低，大量组退化，效率明显下降：换难题 / 上动态采样。",
    "lab.band.b4": "< 0.2，训练实质已停：停下来，别烧卡时。",
    "lab.quiz.Q2.run": "这道题背后的那份日志：adv_std {adv}、entropy {ent}、acc {acc} → {name}。",
    "lab.whynot.learning.cheating": "为什么不是在学：{m} —— 在学的训练 acc 与 reward 同向上升（{r}）。",
    "lab.whynot.learning.dead": "为什么不是在学：{m} —— 目标没有提升，而在学的训练目标会涨。",
    "lab.whynot.cheating.learning": "为什么不是作弊：{m} 与 {r} 同向：没有背离，涨的是真能力。",
    "lab.whynot.cheating.dead": "为什么不是作弊：{m} —— 没有什么在涨，也就谈不上刷分（作弊 = reward 涨而 acc 不涨）。",
    "lab.whynot.dead.learning": "为什么不是废了：{m} —— 目标在提升；废了的训练目标不动。",
    "lab.whynot.dead.cheating": "为什么不是废了：{m} —— 还在涨，训练没有停；问题在于 {a} 没跟着涨。",
    "lab.whynot.unstable": "为什么不是不稳：{m}，{g} —— 更新很平稳（不稳 = clip_frac 超过 20% 且 gnorm 很大）。",
    "lab.whynot.to_unstable": "关键在这里：{m}，{g} —— 每一步更新都太猛：不稳。",
    "lab.whynot.cause": "为什么 {label} 不是{name}：{m} —— {why}。",
    "lab.whynot.c.entropy_collapse": "熵崩塌会让 entropy 趋近 0",
    "lab.whynot.c.sync_failure": "同步失效会让 ratio_mean 单调偏离 1",
    "lab.whynot.c.data_too_easy": "题目变简单时 entropy 保持正常（1.4 左右）",
    "lab.whynot.c.healthy": "正常变长时 acc 随 len 一起涨",
    "lab.whynot.c.length_hacking": "长度作弊是 len 涨而 acc 不涨",
    "lab.whynot.c.batch_noise": "batch 太小的噪声下 clip_frac 只有几个百分点，gnorm 平稳",
    "lab.whynot.c.lr_too_high": "学习率过大会把 clip_frac 推过 20%",
    "lab.whynot.c.reward_hacking": "刷分是 reward 涨而 acc 持平或下降",
    "lab.whynot.c.kl_blowup": "KL 跑飞时 kl 会陡增几个数量级",
    "lab.whynot.c.data_too_hard": "题目太难时 acc 接近 0",
    "lab.whynot.c.stalled": "停滞的训练 reward 完全不动",
    "lab.whynot.c.numeric_instability": "数值不稳表现为 NaN 或 inf，以及爆炸的 gnorm",
    "lab.whynot.c.truncation_starvation": "截断饿死时大多数回答在上限处被截断（trunc 很高）",
    "lab.whynot.c.entropy_explosion": "熵爆炸时 entropy 往上走，而不是往下",
    "lab.whynot.c.plateau": "平台期是先学会了：acc 先涨，再趋平",
    "lab.whynot.c.outlier_step": "离群步只是一步偏离，随后回来",
    "lab.whynot.c.not_learning": "不在学的意思是目标没有提升",
    "lab.knob.lr_down": "降学习率",
    "lab.knob.lr_down.for": "用于更新太猛（clip_frac 超过 20%、gnorm 很大）",
    "lab.knob.temperature_up": "提 temperature / 用 clip-higher（或回滚）",
    "lab.knob.temperature_up.for": "用于策略不再探索（entropy 趋近 0）",
    "lab.knob.fix_sync": "修权重同步（对比采样端与训练端的 log-prob）",
    "lab.knob.fix_sync.for": "用于采样端用的是过时的权重（ratio_mean 单调偏离 1）",
    "lab.knob.fix_reward": "把 reward 绑回验证器（去掉被钻空子的那一项）",
    "lab.knob.fix_reward.for": "用于不解题也能拿分的 reward（reward 涨、acc 不涨）",
    "lab.knob.length_penalty": "惩罚超长回答（并检查长度上限和 trunc）",
    "lab.knob.length_penalty.for": "用于长度能换来 reward 却换不来正确率（len 涨、acc 平）",
    "lab.knob.harder_data": "换难题 / 上动态采样",
    "lab.knob.harder_data.for": "用于整组全对、没有优势可学（adv_std 低、entropy 正常）",
    "lab.knob.bigger_batch": "加大 batch",
    "lab.knob.bigger_batch.for": "用于估计噪声大（曲线抖，但 clip_frac 和 gnorm 平稳）",
    "lab.knob.keep_going": "什么都不改，继续训练",
    "lab.knob.keep_going.for": "用于训练本身没问题（噪声不是故障）",
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
    "lab.quiz.Q1.not1": "不是 1：一份 entropy {ce}（≈ 0），另一份 ratio {sr}（远离 1），都不是平稳的收敛：两份都坏了。",
    "lab.quiz.Q1.not2": "顺序反了：entropy {ce}（≈ 0，ratio {cr}）的那份是熵崩塌；ratio {sr} 的那份是同步失效。",
    "lab.quiz.Q1.not3": "顺序反了：entropy {ce}（≈ 0，ratio {cr}）的那份是熵崩塌；ratio {sr} 的那份是同步失效。",
    "lab.quiz.Q1.not4": "不是 4：entropy {se} 的那份没有崩塌（熵正常），而它的 ratio {sr} 远离 1。",
    "lab.quiz.Q2.not1": "不是 1：两种情况下 reward 都可能还在涨，分不开它们；能分开的是 entropy（这里是 {ent}）。",
    "lab.quiz.Q2.not2": "不是 2：学习率不会让整组答案变得一样；调它说明不了 adv_std 为什么是 {adv}。",
    "lab.quiz.Q2.not3": "不是 3：两种情况 KL 都是缓升，分不开它们；能分开的是 entropy 和那 8 条采样。",
    "lab.quiz.Q2.not4": "不是 4：entropy 和 8 条采样原文正是区分两者的办法。",
    "lab.quiz.Q3.not1": "不是 1：不正常的是第二份的 clip {c2p} 和 gnorm {g2}。",
    "lab.quiz.Q3.not2": "不是 2：第一份的 clip {c1p} 和 gnorm {g1} 都正常：它的抖只是 batch {b1} 的噪声。",
    "lab.quiz.Q3.not3": "不是 3：第一份的更新很平稳（clip {c1p}、gnorm {g1}）；给它降学习率只会让它学得更慢。",
    "lab.quiz.Q3.not4": "不是 4：第二份的 clip {c2p}（超过 20%）和 gnorm {g2} 说明每一步都太大：这不是噪声。",
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
    "lab.exp.E1.title": "在真实循环里做配对 A：reward 平掉的两种方式",
    "lab.exp.E1.s1": "stale_from = 5：从第 5 步起 rollout 引擎不再收到新权重",
    "lab.exp.E1.s2": "temperature 1.0 → 0.4（同时逐 token 裁剪上下都是 0.2、KL 0.001、学习率 10 倍、奖励只看对错）",
    "lab.exp.E1.lesson": "课程的要点：reward 平掉只是症状；ratio_mean 指向同步，entropy 指向熵崩塌。",
    "lab.exp.E2.title": "在真实循环里做配对 B：adv_std 下降的两种方式",
    "lab.exp.E2.s1": "need_median 28 → 1：每道题只需一个正确步骤（题目变简单），奖励只看对错",
    "lab.exp.E2.s2": "temperature 1.0 → 0.4（同时逐 token 裁剪上下都是 0.2、KL 0.001、学习率 10 倍、奖励只看对错）",
    "lab.exp.E2.lesson": "课程的要点：两者 adv_std 都降；看 entropy（和 8 条采样）：正常 = 题目变简单，趋近 0 = 熵崩塌。",
    "lab.exp.E3.title": "在真实循环里做配对 C：回答变长",
    "lab.exp.E3.s1": "len_bonus 0 → 3（从第 5 步起）：长度分按 3 × len/512 给",
    "lab.exp.E3.s2": "reward 不动（对照组）",
    "lab.exp.E3.lesson": "课程的要点：len 涨，只有 acc 跟着涨才健康；配合 trunc 看。",
    "lab.exp.E4.title": "在真实循环里做配对 D：曲线抖动",
    "lab.exp.E4.s1": "lr 0.02 → 0.5（从第 5 步起，25 倍）",
    "lab.exp.E4.s2": "batch 64 → 4（每步 4 个 prompt）",
    "lab.exp.E4.lesson": "课程的要点：曲线抖但 clip_frac、gnorm 平稳 = 噪声（加大 batch 就平了）；clip_frac 超过 20% = 降学习率。",
    "lab.exp.E5.title": "在真实循环里看刷分：宽松的判分器",
    "lab.exp.E5.s1": "hack_bonus 0 → 1.3：回答里列出 8 个答案标记，判分器就给 1.3 分",
    "lab.exp.E5.s2": "严格的判分器（对照组）",
    "lab.exp.E5.lesson": "课程的要点：acc 与 reward 背离 = reward hacking；先读 20 条高分样本，再把 reward 绑回验证器。",
    "lab.claim.ratio_drifts": "ratio_mean 单调偏离 1，entropy 保持正常",
    "lab.claim.entropy_to_zero": "entropy 趋近 0，ratio_mean 恒为 1",
    "lab.claim.stays_healthy": "什么都没坏：entropy 保持正常，ratio_mean 恒为 1",
    "lab.claim.adv_low_entropy_normal": "adv_std 降到 0.5 以下，entropy 保持正常",
    "lab.claim.adv_low_entropy_zero": "adv_std 降到 0.5 以下，entropy 趋近 0",
    "lab.claim.adv_stays": "adv_std 保持在 0.6 以上",
    "lab.claim.len_up_acc_not": "len 涨而 acc 不涨",
    "lab.claim.len_up_acc_up": "len 涨，acc 跟着涨",
    "lab.claim.len_stays": "len 不涨",
    "lab.claim.jitter_clip_high": "clip_frac 超过 20%（每一步都太猛）",
    "lab.claim.jitter_clip_calm": "reward 剧烈抖动，clip_frac 仍在 20% 以下",
    "lab.claim.nothing_changes": "看不出变化：reward 平稳，clip_frac 在 20% 以下",
    "lab.claim.reward_up_acc_not": "reward 涨，acc 持平或下降",
    "lab.claim.reward_acc_up": "reward 与 acc 同向上升",
    "lab.claim.reward_down": "reward 下降",
    "lab.goals.exps": "  4. 转旋钮并预测：实验做了 {done}/{n}，预测成立 {ok}",
}

STRINGS: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}
