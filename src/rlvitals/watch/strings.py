"""Every sentence `watch`, `Monitor` and the TRL callback print, in English and Chinese.

The catalog follows the `rlvitals.i18n` convention (`STRINGS = {"en": {...}, "zh": {...}}`, identical
keys, `str.format` fields).  `tr()` looks a key up in the shared `rlvitals.i18n` tables first (so a
catalog registered there wins) and falls back to this module, so watch works whether or not the i18n
package lists it as a domain.  Finding titles, "ruled out" reasons and action whys are not here: they
belong to the diagnosis catalog (`finding.<id>.title`, `ruled_out.<reason>`, `action_why.<why>`).
"""

from __future__ import annotations

__all__ = ["STRINGS", "tr"]

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "watch.waiting": "waiting for {path} to appear…",
        "watch.appeared": "{path} appeared; reading it",
        "watch.following": "following {path} (every {interval:g} s; Ctrl-C for the summary)",
        "watch.truncated": "{path} shrank from {old} to {new} bytes: the file was truncated or restarted; reading it from the start as a new run",
        "watch.rotated": "{path} was replaced by a new file (rotated); reading the new file from its start",
        "watch.vanished": "{path} disappeared; waiting for it to come back",
        "watch.format": "format: {fmt}",
        "watch.no_format_yet": "no supported log format recognised in the first {lines} lines yet; still reading",
        "watch.overlong": "a line longer than {limit} bytes was cut there",
        "watch.alert.head": "[{sev}] step {step}: {title} ({id}), since step {onset}",
        "watch.alert.head_escalated": "[{sev}] step {step}: {title} ({id}) got worse: now {sev_word}, since step {onset}",
        "watch.alert.evidence": "evidence: {items}",
        "watch.alert.ruled_out": "ruled out: {lookalike}, because {metric} = {value} is normal",
        "watch.alert.missing": "would decide it: {metrics} (not logged)",
        "watch.alert.action": "next: {direction} {knob} (typical {typical}): {why} [{source}]",
        "watch.onset_unknown": "?",
        "watch.sev.warning": "warning",
        "watch.sev.critical": "critical",
        "watch.sev.info": "info",
        "watch.dir.raise": "raise",
        "watch.dir.lower": "lower",
        "watch.dir.enable": "enable",
        "watch.dir.disable": "disable",
        "watch.dir.check": "check",
        "watch.dir.replace": "replace",
        "watch.dir.stop": "stop",
        "watch.exec_failed": "--exec command exited with status {code}",
        "watch.exec_error": "--exec command could not run: {error}",
        "watch.webhook_failed": "--webhook POST to {url} failed: {error}",
        "watch.until_hit": "stopping: {id} reached {sev} (--until {until}); exit status 3",
        "watch.summary.head": "summary after {steps} steps ({lines} lines read; alerts: {alerts})",
        "watch.summary.none": "no steps with metrics were read yet, so there is nothing to diagnose",
        "watch.summary.fallback": "verdict: {verdict}; findings: {findings}",
        "watch.summary.no_findings": "none",
        "watch.skipped": "lines skipped: {items}",
        "watch.diag_failed": "diagnosis failed at step {step}: {error}",
        "monitor.errors": "rlvitals Monitor: {count} errors were caught and ignored (first: {first})",
        "monitor.bad_values": "rlvitals Monitor: {count} values were not numbers and were skipped (e.g. {key})",
        "monitor.summary.head": "rlvitals Monitor summary after {steps} steps (alerts: {alerts})",
        "trl.stopping": "rlvitals: asking the trainer to stop: {id} reached {sev}",
    },
    "zh": {
        "watch.waiting": "等待 {path} 出现…",
        "watch.appeared": "{path} 已出现，开始读取",
        "watch.following": "正在跟踪 {path}（每 {interval:g} 秒检查一次；Ctrl-C 查看总结）",
        "watch.truncated": "{path} 从 {old} 字节缩小到 {new} 字节：文件被截断或重新开始写入；当作新的一次训练从头读取",
        "watch.rotated": "{path} 被换成了新文件（日志轮转）；从新文件开头读取",
        "watch.vanished": "{path} 不见了；等待它重新出现",
        "watch.format": "日志格式：{fmt}",
        "watch.no_format_yet": "前 {lines} 行里还没有识别出支持的日志格式；继续读取",
        "watch.overlong": "一行超过 {limit} 字节，已在此处截断",
        "watch.alert.head": "[{sev}] 第 {step} 步：{title}（{id}），从第 {onset} 步开始",
        "watch.alert.head_escalated": "[{sev}] 第 {step} 步：{title}（{id}）加重为 {sev_word}，从第 {onset} 步开始",
        "watch.alert.evidence": "证据：{items}",
        "watch.alert.ruled_out": "排除：{lookalike}，因为 {metric} = {value} 正常",
        "watch.alert.missing": "能下定论的指标：{metrics}（未记录）",
        "watch.alert.action": "下一步：{direction} {knob}（典型值 {typical}）：{why} [{source}]",
        "watch.onset_unknown": "?",
        "watch.sev.warning": "警告",
        "watch.sev.critical": "严重",
        "watch.sev.info": "提示",
        "watch.dir.raise": "调高",
        "watch.dir.lower": "调低",
        "watch.dir.enable": "打开",
        "watch.dir.disable": "关闭",
        "watch.dir.check": "检查",
        "watch.dir.replace": "更换",
        "watch.dir.stop": "停止",
        "watch.exec_failed": "--exec 命令退出状态为 {code}",
        "watch.exec_error": "--exec 命令无法运行：{error}",
        "watch.webhook_failed": "--webhook 向 {url} 发送失败：{error}",
        "watch.until_hit": "停止：{id} 达到 {sev}（--until {until}）；退出状态 3",
        "watch.summary.head": "{steps} 步之后的总结（读了 {lines} 行，{alerts} 次告警）",
        "watch.summary.none": "还没读到带指标的步，无从诊断",
        "watch.summary.fallback": "结论：{verdict}；发现：{findings}",
        "watch.summary.no_findings": "无",
        "watch.skipped": "跳过的行：{items}",
        "watch.diag_failed": "第 {step} 步诊断失败：{error}",
        "monitor.errors": "rlvitals Monitor：捕获并忽略了 {count} 个错误（第一个：{first}）",
        "monitor.bad_values": "rlvitals Monitor：{count} 个值不是数字，已跳过（例如 {key}）",
        "monitor.summary.head": "rlvitals Monitor：{steps} 步之后的总结（{alerts} 次告警）",
        "trl.stopping": "rlvitals：请训练器停止：{id} 达到 {sev}",
    },
}


def tr(key: str, lang: str = "en", /, **fields: object) -> str:
    """The sentence `key` in `lang`, formatted; shared i18n tables first, then this catalog.

    A key absent everywhere comes back as the key itself, and a template whose fields do not fit
    comes back unformatted: a gap in a catalog must never break an alert.
    """
    template = None
    try:
        from rlvitals.i18n import t

        shared = t(key, lang)
        if shared != key:
            # registered in the shared catalogs: format from the same template via i18n
            return t(key, lang, **fields)
    except Exception:  # the i18n package is someone else's; a bug there must not silence alerts
        pass
    table = STRINGS.get(lang) or STRINGS["en"]
    template = table.get(key) or STRINGS["en"].get(key)
    if template is None:
        return key
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template
