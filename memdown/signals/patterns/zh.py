"""Chinese signal phrases (data only; see ``memdown.signals.patterns``). No word boundaries in Chinese.

Written in Simplified Chinese: Traditional text is folded to Simplified (OpenCC) before matching.
"""

TYPOS: dict[str, str] = {}

COMMAND_VERBS = r"(?:运行|执行|使用|用)\s*:?\s*$"

PATTERNS = [
    ("budui", "correction", 3, r"不对|错了|不是这样|搞错了|你错了|不正确|这样不行|这不行|怪怪的", "after_reply"),
    # natural redirections without a trigger word (a refusal of the plan, "I meant", "no need", "we already have")
    ("wo-shi-shuo", "correction", 2, r"我是(?:说|要你|叫你|想要?)|我的意思是|我要的是|我就是(?:要|想)|我只是(?:要|想)",
     "after_reply"),
    ("buneng", "correction", 1, r"^\W*(?:不能|不可以|为什么不|难道不能)\S|^\W*是不是(?:可以|应该)", "after_reply"),
    ("bu-yong-ba", "correction", 2, r"不(?:用|需要)了?吧|没有?必要|有必要[^，。,]{0,6}吗|需要(?:写)?(?:这么|那么)复杂"
     r"|太复杂|(?:这么|那么)复杂", "after_reply"),
    ("huan-shi-yuan", "correction", 2, r"还是(?:用)?原(?:本|来|先)的?|改回(?:去|来|原)|先不要|先不用|都先不用|不要改了"
     r"|^\W*别(?:改|动|删|清理|加|做)", "after_reply"),
    ("yijing-you", "correction", 2, r"(?:不是|明明)(?:已经)?有.{0,20}(?:可以用|能用)|目前(?:已经)?在(?:用)?的|本来就有|现成的",
     "after_reply"),
    ("shuo-guo", "correction", 2, r"不是(?:跟你|和你)?(?:已经)?(?:说|讲)(?:清楚|过)|我(?:已经|刚|之前)(?:说|讲)(?:过|了)?的?"
     r"|我都提醒了|提醒了.{0,4}次", ""),
    ("mei-kaolv", "correction", 2, r"没有?考虑到?|漏了|没有?(?:记录|记下)|(?:又|还是)忘|你还是(?:没|不)"
     r"|不(?:算|太|是很)?(?:完全)?满意|不达标|失望|(?:表述|说得?)不清楚|做不到[?？吗]|为什么你?做不到", "after_reply"),
    ("keshi", "correction", 1, r"^\W*(?:可是|但是)\S|只是不用|不用帮我", "after_reply"),
    ("bushi-qiangxiang", "correction", 1, r"^\W*你这样[，,]|不是你的强项", "after_reply"),
    ("buyao-yong", "correction", 3, r"不要用|别用|不要使用|不要再|别再|不准用", ""),
    ("yinggai", "correction", 2, r"应该用|应该是|应该改成|应该(?:依照|按照)|为主不是|不是把", "after_reply"),
    ("qishi", "correction", 1, r"^\W*其实", "after_reply"),
    ("erbushi", "correction", 2, r"而不是|而非", "after_reply"),
    ("haishi-buxing", "correction", 2, r"还是不行|还是没有?(?:用|效果|生效)|不起作用|没有生效|不管用|没反应", "after_reply"),
    ("zongshi", "convention", 2, r"总是|始终|永远不要|一律|以后都|以后不要|以后请|每次都", ""),
    ("zhege-xiangmu", "convention", 3, r"在(?:这个|本)(?:项目|仓库|repo)(?:里|中)?(?:我们)?(?:都|统一|一律|使用|用)", ""),
    ("yueding", "convention", 3, r"我们的(?:约定|规范|惯例|规则)", ""),
    ("buyao-wen", "convention", 2, r"不(?:要|用|需要)你?先?(?:停下来)?问我|无需询问|不要停下来|不需要(?:询问|确认)", ""),
    ("yihou-dou", "convention", 3, r"以后.{0,24}(?:都要|都得|都请|一律|必须|要先|不要)|后续(?:只要|都|一律)|每次.{0,40}都要", ""),
    ("yi-ge-yi-ge", "convention", 2, r"一个一个来|一步一步|逐个来", ""),
    ("md-guize", "convention", 3, r"(?:在|到|进)\s*(?:全局)?\s*(?:claude\.?md|md)(?:文件)?(?:中|里)?.{0,6}(?:加|写|记录)"
     r"|全局\s*(?:md|claude\.md)|加(?:入|上)一条", ""),
    ("wanmei", "positive", 2, r"^\W*(?:完美|太好了|很好|非常好|成功了|可以了|没问题了|好了)", "after_action"),
    ("jizhu", "memory_request", 3, r"记住|记下来|记一下|保存到记忆|存到记忆|写入记忆|加到记忆", ""),
    ("guize-cuole", "revert", 3, r"这条规则是?错的|忘掉这条|删除这条规则", ""),
]
