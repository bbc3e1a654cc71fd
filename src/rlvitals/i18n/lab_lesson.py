"""What the lab (闯关) teaches, in English and Chinese, with identical keys: the four pairs' questions,
hints and rules, the lesson's three questions (and why each wrong option is wrong), its judgement table,
the adv_std bands, why a verdict or a cause is ruled out, the knobs and the experiments' settings and claims.

The Chinese follows the lesson's own words (its judgement table and its three closing questions); the
English says the same thing plainly.  A catalog of its own (domain `lab_lesson`), so the same
completeness tests cover it; the screens and commands that show these strings are in `lab`.
"""

from __future__ import annotations

_EN: dict[str, str] = {
    # ---- the four pairs: the question, where to look, the rule
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
    # ---- the lesson's three questions
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
    # ---- adv_std bands (`ref adv_std`), and the run behind question 2
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
    # ---- why a verdict or a cause is ruled out
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
    # ---- the knobs, and what each one is for
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
    # ---- why each wrong option of the three questions is wrong
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
    # ---- the experiments: settings, what each teaches, the predictions to choose from
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
}

_ZH: dict[str, str] = {
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
}

STRINGS: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}
