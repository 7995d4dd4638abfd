"""Chinese signal phrases (data only; see ``memdown.signals.patterns``). No word boundaries in Chinese."""

TYPOS: dict[str, str] = {}

COMMAND_VERBS = r"(?:运行|执行|使用|用)\s*:?\s*$"

PATTERNS = [
    ("budui", "correction", 3, r"不对|错了|不是这样|搞错了|你错了|不正确", "after_reply"),
    ("buyao-yong", "correction", 3, r"不要用|别用|不要使用|不要再|别再|不准用", ""),
    ("yinggai", "correction", 2, r"应该用|应该是|应该改成", "after_reply"),
    ("qishi", "correction", 1, r"^\W*其实", "after_reply"),
    ("erbushi", "correction", 2, r"而不是|而非", "after_reply"),
    ("haishi-buxing", "correction", 2, r"还是不行|还是没有?(?:用|效果|生效)|不起作用|没有生效|不管用|没反应", "after_reply"),
    ("zongshi", "convention", 2, r"总是|始终|永远不要|一律|以后都|以后不要|以后请|每次都", ""),
    ("zhege-xiangmu", "convention", 3, r"在(?:这个|本)(?:项目|仓库|repo)(?:里|中)?(?:我们)?(?:都|统一|一律|使用|用)", ""),
    ("yueding", "convention", 3, r"我们的(?:约定|规范|惯例|规则)", ""),
    ("buyao-wen", "convention", 2, r"不要(?:停下来)?问我|无需询问|不用问我|不要停下来|不需要(?:询问|确认)", ""),
    ("wanmei", "positive", 2, r"^\W*(?:完美|太好了|很好|非常好|成功了|可以了|没问题了|好了)", "after_action"),
    ("jizhu", "memory_request", 3, r"记住|记下来|记一下|保存到记忆|存到记忆|写入记忆|加到记忆", ""),
    ("guize-cuole", "revert", 3, r"这条规则是?错的|忘掉这条|删除这条规则", ""),
]
