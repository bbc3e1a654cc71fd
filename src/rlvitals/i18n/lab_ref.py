"""The lesson's reference material for the lab's `ref TOPIC` (and `rlvitals lab --ref TOPIC`), en + zh.

The Chinese is the lesson's own text (「闯关：读第一次训练曲线」, without its plotting code); the
English is our translation.  Lines starting with "|" are table rows, drawn by `lab.reference`.
A catalog of its own (domain `lab_ref`), so the same completeness tests cover it.
"""

from __future__ import annotations

_EN: dict[str, str] = {
    "lab.ref.what": (
        "“The lesson” is the course page rlvitals is built to: 「闯关：读第一次训练曲线」 (“Level: read your first trainin"
        "g curves”), a Chinese lesson on reading the curves of RL fine-tuning of LLMs.  Its reference materia"
        "l, in English:"
    ),
    "lab.ref.index": ("  ref TOPIC, where TOPIC is one of: {topics}   (outside the lab: rlvitals lab --ref TOPIC)"),
    "lab.ref.unknown": "There is no reference topic {word!s}.",
    "lab.ref.plot": (
        "== First, draw the curves (the lesson) ==\n"
        "A log prints rows of numbers; trends, turning points and how two lines move together only show once "
        "they are drawn.\n"
        "- Give the ratio panel a red reference line at y = 1.0.  A broken weight sync shows as ratio driftin"
        "g steadily away from 1: with the line you see it at a glance, without it you are reading the y-axis "
        "ticks.\n"
        "- Draw reward and acc together (or next to each other).  How the two lines relate matters far more t"
        "han either value: when they diverge, that is reward hacking.  Side by side, you need not flip betwee"
        "n figures.\n"
        "(rlvitals draws this figure: rlvitals plot run.log -o curves.png)"
    ),
    "lab.ref.healthy": (
        "== What healthy shapes look like (the lesson) ==\n"
        "First, a reference: the eight curves of the successful L2 run (200 steps).\n"
        "| metric | start → end | shape | why it is healthy |\n"
        "| reward | 0.412 → 0.847 | slow rise, levelling off late | it is learning, and diminishing returns a"
        "re normal |\n"
        "| acc | 21.1% → 57.4% | same direction as reward | real skill rises, not the format score |\n"
        "| entropy | 1.842 → 1.498 | slow fall, far from 0 | converging, with room left to explore |\n"
        "| kl | 0.002 → 0.045 | slow climb | drifting, but at a safe magnitude |\n"
        "| adv_std | 1.031 → 0.664 | slow fall | ⚠️ the only one to watch (ref adv_std) |\n"
        "| clip_frac | 0.000 → 0.041 | from 0 up to a few percent | healthy update size |\n"
        "| ratio_mean | constant ≈ 1.0000 | flat | weight sync works |\n"
        "| len | 78 → 152 | rising, together with acc | writing in more detail brings higher accuracy |\n"
        'Of the eight curves only ratio_mean belongs to the "should stay constant" kind.  The other seven all'
        " change: what you judge is the direction and the rate of the change."
    ),
    "lab.ref.shapes": (
        "== The four shape words (the lesson) ==\n"
        "The vocabulary for judging curves is small, just four words:\n"
        "- slow rise / slow fall: healthy change is gradual\n"
        "- flat: no longer changing — maybe converged, maybe stuck\n"
        "- steep jump / surge: an order of magnitude within a few steps — almost always bad news\n"
        "- monotonic drift: a quantity that should stay constant keeps moving one way — usually a bug, not a "
        "phenomenon"
    ),
    "lab.ref.adv_std": (
        '== adv_std falling: the one signal that is "normal, but watch it" (the lesson) ==\n'
        "adv_std going from 1.03 to 0.66 deserves its own section: it is not a fault, and it cannot be ignore"
        "d either.  The mechanism:\n"
        "  the model gets stronger\n"
        "  → easy prompts start coming back all correct\n"
        "  → those groups' rewards are all 1, std = 0\n"
        "  → the whole group's advantage is zero: that part of the batch was wasted\n"
        "  → on average, adv_std falls\n"
        "So what it tells you is: there is less information left to sample, and the marginal return is fallin"
        "g.  How to read it:\n"
        "| adv_std | meaning | what to do |\n"
        "| 0.8 ~ 1.2 | healthy, enough difference within groups | carry on |\n"
        "| 0.5 ~ 0.8 | normal late on, returns start to diminish | watch it |\n"
        "| 0.3 ~ 0.5 | many groups degenerate, efficiency drops clearly | harder data / dynamic sampling |\n"
        "| < 0.2 | training has effectively stopped | stop, don't burn GPU hours |\n"
        "Three remedies (L3, reading slime, shows how an industrial framework does it):\n"
        "- a harder subset of the data — the most direct\n"
        "- dynamic sampling: sample extra prompts, drop the groups with std = 0, fill up to the target batch "
        "(what DAPO does)\n"
        "- a continuous format score — scores are no longer only 0/1, so even an all-correct group differs\n"
        "Easy data and entropy collapse both make adv_std fall, for opposite reasons and with opposite fixes:"
        "\n"
        "|  | adv_std falls because the data is too easy | adv_std falls because of entropy collapse |\n"
        "| entropy | normal (about 1.4) | monotonically → 0 |\n"
        "| 8 samples | different contents, just all right | almost exactly the same |\n"
        "| acc | high (e.g. 57%) | stuck at some middling value |\n"
        "| fix | harder data | raise temperature / roll back |\n"
        "How to tell them apart: look at entropy and at the sampled answers themselves.  This is the most pra"
        "ctical distinction of the lesson."
    ),
    "lab.ref.table": (
        "== One judgement table (the lesson) ==\n"
        "The diagnostic value of the eight curves in one table — the one table most worth remembering; L4 use"
        "s it again and again:\n"
        "| metric | healthy | when abnormal it points to |\n"
        "| reward | slow rise | flat = not learning; surging = maybe gaming the score |\n"
        "| acc | same direction as reward | diverging from reward = reward hacking |\n"
        "| entropy | slow fall, far from 0 | → 0 = entropy collapse; rising = maybe KL running away |\n"
        "| kl | slow rise | steep jump = running away |\n"
        "| adv_std | 0.8 ~ 1.2 | → 0 = no difference within groups (entropy tells the cause) |\n"
        "| clip_frac | a few percent | > 20% = each step too violent: lower the learning rate |\n"
        "| ratio_mean | constant ≈ 1.0 | monotonic drift = the weights are not synced |\n"
        "| len | stable, or with acc | rising while acc does not = length hacking (read it with trunc) |\n"
        "The same move comes back in all four pairs:\n"
        "- A2's adv_std is normal → the data side is ruled out → the problem is the sync\n"
        "- B1's entropy is normal → entropy collapse is ruled out → the model really got stronger\n"
        "- D1's clip and gnorm are normal → violent updates are ruled out → it is only observation noise\n"
        "The symptom tells you something is wrong; the normal metrics tell you where.  So learn all eight: fo"
        "rget one, and you lose one tool for ruling things out."
    ),
    "lab.ref.pairs": (
        "== Telling training apart: the four confusable pairs (the lesson) ==\n"
        'L4 ("five ways to blow up") gives the full diagnosis and fix of five named failures.  This lesson pr'
        "actises something more basic: seeing similar symptoms, can you tell the different causes apart?\n"
        '- 1. "flat because of entropy collapse" vs "flat because the sync failed"\n'
        '- 2. adv_std falling because "the data got easy" vs because of "entropy collapse"\n'
        '- 3. "normal growth in length" vs "length explosion"\n'
        '- 4. "normal noise of a small batch" vs "a learning rate that is too high"\n'
        "Four pairs.  In each, two logs look alike on the surface and have completely different causes.  Look"
        " at one with `pair`, check with `diff`.  Judge for yourself first, then look.  `goals` shows the obj"
        "ectives, `hint` gives a hint."
    ),
    "lab.ref.summary": (
        "== Where this lesson lands (the lesson) ==\n"
        "- Draw the eight curves first; give the ratio panel a y = 1.0 reference line, put reward and acc nex"
        "t to each other\n"
        "- Four shape words: slow rise / slow fall (healthy), flat, steep jump, monotonic drift (usually a bu"
        "g)\n"
        '- Of the eight only ratio_mean "should stay constant"; the rest all change: judge the direction and '
        "the rate\n"
        '- adv_std falling is "normal, but watch it": the cause shows in entropy and in how diverse the sampl'
        "ed answers are\n"
        '- "reward flat", "adv_std low", "len rising", "curves shaking": each of these four symptoms has two '
        "or more causes\n"
        "- The routine: the symptom tells you something is wrong, the normal metrics tell you where — so lear"
        "n all eight\n"
        '- The full diagnosis and fix of the five named failures is in L4 ("five ways to blow up")'
    ),
}

_ZH: dict[str, str] = {
    "lab.ref.what": "「课程」指 rlvitals 依据的那一节课：《闯关：读第一次训练曲线》，讲怎么读大模型 RL 微调的训练曲线。下面是它的参考资料（课程原文）：",
    "lab.ref.index": "  参考 主题，主题可以是：{topics}（在闯关外：rlvitals lab --ref 主题）",
    "lab.ref.unknown": "没有叫 {word!s} 的参考主题。",
    "lab.ref.plot": (
        "== 先把曲线画出来（课程原文）==\n"
        "你的训练脚本现在往 stdout 打一行行数字。光看数字看不出形状——趋势、拐点、两条线的相关性，全都要画出来才看得见。\n"
        "- ratio 那张图画一条 y=1.0 的红色参考线。 权重同步失效的特征是 ratio 单调偏离 1，有参考线时一眼就看出来；没有的话你得盯着 y 轴刻度读数。\n"
        "- reward 和 acc 画在一起（或者上下相邻）。 这两条线的相对关系比各自的绝对值重要得多——它们背离就是 reward hacking。相邻摆放能让你不用来回切图。\n"
        "（rlvitals 画的就是这张图：rlvitals plot run.log -o curves.png）"
    ),
    "lab.ref.healthy": (
        "== 健康的形状长什么样（课程原文）==\n"
        "先建立参照。这是 L2 那次成功训练的八条曲线（200 步）：\n"
        "| 指标 | 起点 → 终点 | 形状 | 为什么是健康的 |\n"
        "| reward | 0.412 → 0.847 | 缓慢上升，后期趋平 | 在学，且收益递减是正常的 |\n"
        "| acc | 21.1% → 57.4% | 与 reward 同向 | 涨的是真能力，不是格式分 |\n"
        "| entropy | 1.842 → 1.498 | 缓慢下降，远离 0 | 在收敛但仍有探索空间 |\n"
        "| kl | 0.002 → 0.045 | 缓慢上行 | 有漂移但量级安全 |\n"
        "| adv_std | 1.031 → 0.664 | 缓慢下降 | ⚠️ 唯一要留意的（见 参考 adv_std） |\n"
        "| clip_frac | 0.000 → 0.041 | 从 0 缓升到几个百分点 | 更新幅度健康 |\n"
        "| ratio_mean | 恒 ≈ 1.0000 | 平的 | 权重同步正常 |\n"
        "| len | 78 → 152 | 上升，且与 acc 同向 | 写详细带来了更高正确率 |\n"
        "八条曲线里，只有 ratio_mean 属于「本该稳定」那一类。其余七条都在变化，你要判断的是变化的方向和速率。"
    ),
    "lab.ref.shapes": (
        "== 四个形状词（课程原文）==\n"
        "判断曲线用的词汇很小，就四个：\n"
        "- 缓升 / 缓降：健康的变化都是渐进的\n"
        "- 平掉：不再变化 —— 可能是收敛，也可能是卡住\n"
        "- 陡增 / 暴涨：几步内跳一个数量级 —— 几乎总是坏消息\n"
        "- 单调偏离：本该稳定的量持续往一个方向走 —— 通常是 bug 而不是现象"
    ),
    "lab.ref.adv_std": (
        "== adv_std 下降：唯一一个「正常但要留意」的信号（课程原文）==\n"
        "adv_std 从 1.03 降到 0.66，这条值得单独说，因为它既不是故障也不能忽略。机制是这样的：\n"
        "  模型变强\n"
        "  → 简单题开始大面积全对\n"
        "  → 那些组的 reward 全是 1，std = 0\n"
        "  → 整组优势归零，这批白跑\n"
        "  → 平均下来 adv_std 就降了\n"
        "所以它其实是在告诉你：可采信息在减少，边际收益在下降。判读标准：\n"
        "| adv_std | 含义 | 处置 |\n"
        "| 0.8 ~ 1.2 | 健康，组内差异充足 | 继续 |\n"
        "| 0.5 ~ 0.8 | 后期正常，收益开始递减 | 留意 |\n"
        "| 0.3 ~ 0.5 | 大量组退化，效率明显下降 | 换难题 / 上动态采样 |\n"
        "| < 0.2 | 训练实质已停 | 停下来，别烧卡时 |\n"
        "三个对策（L3 读 slime 时会看到工业框架怎么做）：\n"
        "- 换更难的数据子集 —— 最直接\n"
        "- 动态采样：多采一些 prompt，丢掉 std=0 的组，补到目标 batch（DAPO 的做法）\n"
        "- 加连续的格式分 —— 让分数不再只有 0/1，全对的组也能有差异\n"
        "两者都会让 adv_std 降，但原因相反，处置也相反：\n"
        "|  | adv_std 因题目太简单而降 | adv_std 因熵崩塌而降 |\n"
        "| entropy | 正常（1.4 左右） | 单调趋近 0 |\n"
        "| 8 条采样 | 内容不同，只是都对了 | 几乎完全一样 |\n"
        "| acc | 高（比如 57%） | 卡在某个中等值 |\n"
        "| 处置 | 换难题 | 提 temperature / 回滚 |\n"
        "区分方法：看 entropy 和采样原文。 这是本节最实用的一条辨别。"
    ),
    "lab.ref.table": (
        "== 一张判读表（课程原文）==\n"
        "把八条曲线的诊断价值压成一张表。这是全站最该记住的一张表，L4 会反复用到：\n"
        "| 指标 | 健康 | 异常时指向 |\n"
        "| reward | 缓升 | 平 = 没学；暴涨 = 可能在刷分 |\n"
        "| acc | 与 reward 同向 | 与 reward 背离 = reward hacking |\n"
        "| entropy | 缓降，远离 0 | 趋近 0 = 熵崩塌；上升 = 可能 KL 跑飞 |\n"
        "| kl | 缓升 | 陡增 = 跑飞 |\n"
        "| adv_std | 0.8 ~ 1.2 | 趋近 0 = 组内没差异（成因看 entropy） |\n"
        "| clip_frac | 几个百分点 | > 20% = 单步太猛，降学习率 |\n"
        "| ratio_mean | 恒 ≈ 1.0 | 单调偏离 = 权重没同步 |\n"
        "| len | 稳定或与 acc 同向 | 涨而 acc 不涨 = 长度作弊（配合 trunc 看） |\n"
        "四组配对里反复出现同一个手法：\n"
        "- A2 的 adv_std 正常 → 排除数据侧 → 问题在同步\n"
        "- B1 的 entropy 正常 → 排除熵崩塌 → 是模型真变强了\n"
        "- D1 的 clip 和 gnorm 正常 → 排除更新震荡 → 只是观测噪声\n"
        "症状告诉你「不对」，正常的指标告诉你「不对在哪」。 所以八条要记全——少记一条，就少一个排除工具。"
    ),
    "lab.ref.pairs": (
        "== 辨认训练：容易混的四组（课程原文）==\n"
        "L4「五种炸法」会给五种命名失效的完整诊断与处置。这一节练的是更基础的一件事：看到相似的现象，能不能分辨出不同的原因。\n"
        "- 1.区分「熵崩塌导致的平」与「同步失效导致的平」\n"
        "- 2.区分「题目变简单」与「熵崩塌」造成的 adv_std 下降\n"
        "- 3.区分「正常变长」与「长度爆炸」\n"
        "- 4.区分「batch 太小的正常噪声」与「学习率过大」\n"
        "四组配对。每组两份日志表面现象相似，原因完全不同。 用 pair 看一组，diff 对答案。先自己判断再看。 goals 看目标，hint 要提示。"
    ),
    "lab.ref.summary": (
        "== 这节课的落点（课程原文）==\n"
        "- 先把八条曲线画出来；ratio 图加一条 y=1.0 参考线，reward 和 acc 相邻摆放\n"
        "- 四个形状词：缓升缓降（健康）、平掉、陡增、单调偏离（通常是 bug）\n"
        "- 八条里只有 ratio_mean 属于「本该稳定」，其余都在变，判断的是方向与速率\n"
        "- adv_std 下降是「正常但要留意」：成因看 entropy 和采样原文的多样性\n"
        "- 「reward 平掉」「adv_std 低」「len 涨」「曲线抖」这四种症状都对应两种以上原因\n"
        "- 诊断套路：症状告诉你不对，正常的指标告诉你不对在哪 —— 所以八条要记全\n"
        "- 五种命名失效的完整诊断与处置在 L4「五种炸法」"
    ),
}

STRINGS: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}
