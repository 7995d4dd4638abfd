"""English signal phrases (data only; see ``memdown.signals.patterns``)."""

TYPOS = {
    "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "isnt": "isn't", "wont": "won't",
    "cant": "can't", "shouldnt": "shouldn't", "wasnt": "wasn't", "arent": "aren't", "thats": "that's",
    "whats": "what's", "youre": "you're", "ive": "i've", "im": "i'm", "teh": "the", "hte": "the",
    "taht": "that", "rember": "remember", "remeber": "remember", "rememebr": "remember",
    "memroy": "memory", "memort": "memory", "memmory": "memory", "wrogn": "wrong", "worng": "wrong",
    "actualy": "actually", "acutally": "actually", "acually": "actually", "insted": "instead",
    "isntead": "instead", "alwyas": "always", "allways": "always", "alway": "always", "nevr": "never",
    "pls": "please", "plz": "please", "u": "you", "ur": "your", "gruped": "grouped",
    "wokr": "works", "wokrs": "works", "wroks": "works", "workign": "working", "wroking": "working",
    "workin": "working", "perfact": "perfect", "prefect": "perfect", "exaclty": "exactly",
    "exatly": "exactly", "convension": "convention", "conventon": "convention", "stil": "still",
    "nto": "not", "ot": "to", "jsut": "just", "lgtm": "looks good",
}

COMMAND_VERBS = (r"\b(?:run|runs|running|use|execute|exec|type|call|try|launch|invoke|test with|build with"
                 r"|start with|with|via|using)\s*:?\s*$")

_VERB = (r"(?:use|run|call|add|put|write|prefer|import|commit|push|create|make|keep|include|ask|check|test"
         r"|format|lint|do|go|start|end|name|return|wrap|prefix|rebase|merge|pin|install|mock|delete|remove)")

PATTERNS = [
    # --- corrections -----------------------------------------------------------------
    ("no-punct", "correction", 2,
     r"{FILL}(?:no+[\s,]+)*(?:no+|nope|nah)\s*[,.!;:\u2014-]+(?!\s*(?:worries|problem|thanks|thank you|need)\b)",
     "not_after_question after_reply"),
    ("no-verb", "correction", 2,
     r"{FILL}(?:no+|nope|nah)\s+(?:use|do|don't|it's|its|that's|you|we|i said|i meant|i mean|wait|the|just|not|stop"
     r"|wrong|this|that|it should|you should|we should|instead|put|run|keep)\b", "not_after_question after_reply"),
    ("wrong", "correction", 3,
     r"(?:\b(?:that|this|it) (?:is|was)|\b(?:that's|it's|this's|you're|you are))\s+(?:(?:totally|completely|all"
     r"|still|just|so|very|simply)\s+)?(?:wrong|incorrect|not right|not correct)\b|^\W*(?:wrong|incorrect)\b", ""),
    ("thing-is-wrong", "correction", 2,
     r"\b(?:that|this|your|the)\s+(?:\w+\s+){0,2}(?:is|was|are|were|looks?)\s+(?:\w+\s+)?(?:wrong|incorrect)\b",
     "after_reply"),
    ("misunderstood", "correction", 3,
     r"\byou (?:misunderstood|misread|misunderstand|got it wrong|got that wrong|confused|mixed up)\b"
     r"|\b(?:isn't|is not|wasn't|was not) what (?:i|we|the)\b|\bnot (?:quite )?(?:it|right)\b(?! now)", ""),
    ("wrong-thing", "correction", 2,
     r"\bwrong (?:file|command|approach|way|directory|folder|dir|branch|place|path|version|package"
     r"|function|method|module|one|table|column|import|repo|env|environment|tool|syntax)\b", "after_reply"),
    ("actually", "correction", 2, r"{FILL}actually\b", "after_reply"),
    ("use-not", "correction", 3, r"\buse\s+`?[\w@./:+-]+`?(?:\s+\w+)?,?\s+(?:and\s+)?not\s+`?[\w@./:+-]+", ""),
    ("rather-than", "correction", 2, r"\b(?:rather than|not\s+\S+\s+but\s+\S+)(?![^.]*\?\W*$)", "after_reply"),
    ("dont-use", "correction", 3,
     r"\b(?:don't|do not|please don't)\s+(?:ever\s+)?(?:use|using)\b", ""),
    ("dont-do", "correction", 2,
     r"\b(?:don't|do not|please don't)\s+(?:ever\s+)?(?:run|call|add|touch|edit|modify|change|commit|push"
     r"|import|install|create|put|write|mock|delete|remove|rename|hardcode|hard-code|skip|disable)\b"
     r"|(?:^\W*|[,;]\s*|\b(?:please|pls|and|but|so|just)\s+)(?:don't|do not)\s+(?!worry|forget|know|think|need|have"
     r"|see|understand|mind|care|get|want|like|stop|hesitate|bother|ask)\w+", ""),
    ("can-you-not", "correction", 2, r"\b(?:can|could|would) you (?:please )?not\b", "after_reply"),
    ("broke", "correction", 2,
     r"\b(?:this|that|it|you|your change|the change|the last change)\s+(?:just\s+|now\s+)?(?:broke|breaks|has broken"
     r"|introduced (?:a |another )?(?:regression|bug))\b", "after_reply"),
    ("stop-using", "correction", 3,
     r"\bstop (?:using|doing|adding|calling|running|creating|writing|putting|making|changing|touching"
     r"|mocking|guessing|deleting|removing|committing|pushing)\b", ""),
    ("we-dont", "correction", 3,
     r"\bwe (?:don't|do not|never|no longer) (?:do|use|write|put|add|call|run|need)\b"
     r"|\bthat's not how we\b|\bnot how we do\b", ""),
    ("not-anymore", "correction", 2,
     r"\bnot any ?more\b|\bno longer (?:use|used|needed|need|exist|exists|valid|true|the case|work|works"
     r"|supported|relevant)\b|\b(?:don't|doesn't|isn't|aren't|not)\b[^.]{0,40}\bany ?more\b", ""),
    ("should-have", "correction", 2,
     r"\byou should(?:'ve| have)\b|\bshould have (?:used|been|asked|run|checked)\b|\bit should (?:be|use)\b"
     r"|\bthat should be\b", "after_reply"),
    ("didnt-ask", "correction", 3,
     r"\bi (?:didn't|did not|never) (?:ask|want|say|tell you|mean)\b|\bthat's not what i\b"
     r"|\bnot what i (?:asked|wanted|meant)\b", ""),
    ("dont-like", "correction", 2,
     r"\bi (?:don't|do not) (?:like|want) (?:this|that|it|any|the|these|those|how|your)\b", "after_reply"),
    ("revert-change", "correction", 2,
     r"\b(?:revert|undo|roll ?back|back out) (?:that|this|it|the change|the changes|your change|your changes"
     r"|what you did|those|the last|everything)\b|^\W*(?:please\s+)?(?:revert|undo|roll ?back)\b", "after_reply"),
    ("i-said", "correction", 2, r"\bi (?:said|told you|already said|already told you)\b|\bas i said\b", ""),
    ("wait", "correction", 1, r"{FILL}(?:wait|hold on|hang on|whoa|woah)\b", "after_reply"),
    ("issue-is-not", "correction", 2,
     r"\b(?:issue|problem|bug|culprit|cause|error) is\b.{1,80}?\bnot\b", "after_reply"),
    ("still-broken", "correction", 2,
     r"\bstill\s+(?:not|doesn't|isn't|broken|failing|fails|fail|wrong|the same|getting|seeing|shows|crash)"
     r"|\b(?:doesn't|does not|didn't|did not|isn't|is not|not)\s+(?:\w+\s+){0,2}(?:work|working|worked"
     r"|fixed|fix it)\b", "after_reply"),
    ("not-done", "correction", 1,
     r"\b(?:this|it|that)(?:\s+is|\s+was|'s)?\s+not\s+(?:being\s+)?(?:grouped|showing|shown|displayed|applied|appearing"
     r"|loading|loaded|saved|updated|changed|fixed|sorted|filtered|done|rendered|visible|called|triggered"
     r"|firing|hit|used)\b|\bnothing (?:happens|happened|happen|changed|changes)\b"
     r"|\bkeeps? (?:showing|failing|happening|crashing|coming back|returning|spinning)\b"
     r"|\bnever (?:updates|fires|shows|changes|gets (?:called|hit|updated|triggered))\b", "after_reply"),
    ("worked-before", "correction", 2,
     r"\b(?:worked|was working|used to work|passed) before (?:these|those|your|the|this|that) changes?\b"
     r"|\byou broke\b|\b(?:this|that|your) change broke\b", "after_reply"),
    ("but-i-want", "correction", 1, r"^\W*(?:but|no but)\s+i\s+(?:still\s+(?:want|need)|said|asked|wanted)\b",
     "after_reply"),
    ("doesnt-this", "correction", 1,
     r"^\W*(?:doesn't|won't|wouldn't|isn't|shouldn't) (?:this|that|it)\b", "after_reply"),
    ("try-this", "correction", 1, r"^\W*(?:try|maybe try|why not just)\s+(?:some|something|with|using|it|a|the)\b",
     "after_reply"),
    ("why-did-you", "correction", 1, r"\bwhy (?:did|would|are|do) you\b", "after_reply"),
    ("thats-not", "correction", 2,
     r"\bthat's not (?:it|the (?:issue|problem|point|case))\b|\bnot like (?:that|this)\b", "after_reply"),
    # natural phrasing without a trigger word: "you switched…", "X already exists", "is a core plugin, not a…"
    ("you-did", "correction", 2,
     r"^\W*you (?:just )?(?:switched|deleted|removed|overwrote|reverted|dropped|ignored|forgot|missed|skipped|moved"
     r"|renamed|turned off|disabled)\b", "after_reply"),
    ("already-exists", "correction", 2,
     r"\b(?:already (?:exists?|defines?|in place|built)|we already have|there(?:'s| is) already)\b(?![^.]*\?)",
     "after_reply"),
    ("is-not-a", "correction", 2, r"\bis an? [\w -]{1,30}, not an? \w|\bcircular logic\b"
     r"|\b(?:erroneously|mistakenly|wrongly)\b", ""),
    ("keep-assuming", "correction", 2,
     r"\b(?:keeps?|kept) (?:assuming|guessing|forgetting|ignoring|breaking|overwriting|switching)\b"
     r"|\bwithout (?:reading|checking|looking)\b|\bassumptions? without\b", ""),
    ("can-we-use", "correction", 1, r"^\W*(?:can|could|shouldn't|can't|couldn't) (?:we|i) (?:just )?(?:use|keep|reuse"
     r"|drop)\b", "after_reply"),
    ("later-first", "correction", 1,
     r"\bat a later (?:date|time)\b|\b(?:let's|lets) (?:leave|park|skip|hold off on) (?:that|this|it|the)\b"
     r"|\bnot now\b|\bfinish [\w ]{1,30} first\b", "after_reply"),
    ("issue-is", "correction", 1, r"^\W*(?:\w+\W+){0,2}the (?:real |actual )?(?:issue|problem) is\b", "after_reply"),
    # --- conventions -----------------------------------------------------------------
    ("ask-first", "convention", 2,
     r"\b(?:stop and ask|ask (?:me|\w+) (?:first|before)|check (?:in|with me) (?:often|first|before))\b", ""),
    ("preferred-to", "convention", 2,
     r"\b(?:is|are) (?:slightly |much |generally )?(?:preferred|favou?red) (?:to|over)\b"
     r"|\bi (?:like|prefer) the (?:names?|naming|terms?)\b", ""),
    ("step-by-step", "convention", 1, r"\bstep by step\b|\bone (?:at a time|by one)\b", ""),
    ("always-never", "convention", 2, r"\b(?:always|never)\s+(?:\w+\s+)?" + _VERB + r"\b", ""),
    ("please-always", "convention", 3, r"\bplease (?:always|never)\b|\bmake sure (?:to|you) always\b", ""),
    ("in-this-repo", "convention", 3,
     r"\b(?:in|for|across) (?:this|our|the) (?:repo|repository|project|codebase|code base|team|company|org"
     r"|monorepo)\b[^.?]{0,40}?\b(?:we|you|all|every|always|never|use|should|must|don't|prefer|have to)\b", ""),
    ("here-we", "convention", 2, r"\b(?:here|around here),? we (?:use|do|prefer|always|never|don't|write)\b", ""),
    ("convention-is", "convention", 3,
     r"\b(?:our|the) (?:convention|standard|rule|style|practice|policy|guideline|naming convention)s?\b"
     r"(?:\s+here)?\s+(?:is|are|says)\b|\bby convention\b", ""),
    ("goes-in", "convention", 2,
     r"\b(?:go|goes|belong|belongs|live|lives|should live|should go|should be|must be|are kept|is kept"
     r"|stay|stays|is defined|are defined|is located|are located|is configured|are stored|is stored)"
     r" (?:in|into|under|inside|at)\s+(?:the\s+)?(?:`?[\w:.~-]*[\\/][\w.\\/-]*`?|\w+ (?:folder|directory|dir))", ""),
    ("we-use", "convention", 2,
     r"(?<!can )(?<!could )(?<!should )(?<!do )(?<!shall )(?<!would )(?<!why )(?<!how )(?<!if )(?<!places )"
     r"(?<!where )(?<!what )(?<!which )(?<!things )(?<!everything )(?<!all )"
     r"\bwe (?:use|prefer|usually|typically|only use|normally|generally|stick to|rely on|always)\b", ""),
    ("from-now-on", "convention", 3,
     r"\b(?:from now on|going forward|in the future|next time|from here on|henceforth|for future reference)\b", ""),
    ("prefer", "convention", 2,
     r"\bi (?:prefer|like it when|want you to always|'d rather|would rather|always want)\b|^\W*(?:please\s+)?prefer\b"
     r"|\bprefer \S+ (?:over|to)\b", ""),
    ("please-keep", "convention", 1, r"\bplease (?:keep|avoid|stick to)\b", ""),
    ("dont-ask", "convention", 2,
     r"\b(?:don't|do not|no need to|stop|never)\s+(?:\w+\s+)?(?:ask|asking|check with|checking with"
     r"|confirm with|wait for) (?:me|for (?:permission|confirmation|approval))\b|\bwithout asking\b", ""),
    ("noticed-you", "convention", 2,
     r"\bi(?:'ve| have)? noticed (?:that )?you\b|\byou keep (?:\w+ing)\b"
     r"|\byou(?:'re| are) (?:being )?(?:too |very |so )(?:tentative|verbose|cautious|slow|lazy|wordy)\b", ""),
    # --- positive reinforcement (only right after a multi-step action) ------------------
    ("perfect", "positive", 2,
     r"{FILL}(?:perfect|excellent|awesome|great|brilliant|nice|exactly|beautiful|fantastic|amazing|sweet"
     r"|superb|wonderful|spot on|nailed it|bingo|yes+ that's it)\b(?!\s+(?:question|point|idea))",
     "after_action"),
    ("works", "positive", 2,
     r"(?<!if )(?<!whether )(?<!when )(?<!does )(?<!did )\b(?:that|this|it|everything|things?|all|link|build|test"
     r"|tests|now it)\s+(?:\w+\s+){0,2}(?:works|worked|working|work now|seems to work|did it|did the trick)\b"
     r"(?!\s+(?:locally|on my machine|but|except|only|sometimes|in dev|for me but))", "after_action neg_guard"),
    ("works-start", "positive", 2, r"{FILL}(?:it's\s+|its\s+|now\s+)?(?:working|works|worked)\b",
     "after_action neg_guard"),
    ("looks-good", "positive", 1,
     r"\b(?:looks|looking|look|seems) (?:good|great|perfect|right|fine|correct)\b"
     r"|\b(?:nice|good|great) (?:work|job)\b|\bwell done\b|\bthat fixed it\b", "after_action neg_guard"),
    # --- explicit memory requests ---------------------------------------------------------
    ("remember-start", "memory_request", 3,
     r"{FILL}(?:please\s+|also\s+|and\s+|now\s+)?(?:remember|memorize|memorise)\b(?!\s+(?:when|how|what|me)\b)",
     ""),
    ("remember-that", "memory_request", 3,
     r"(?<!do you )(?<!did you )(?<!can you )(?<!i )(?<!i don't )(?<!you )"
     r"\b(?:remember|memorize|memorise|keep in mind|don't forget)\s+(?:and\s+\w+\s+(?:\w+\s+)?)?"
     r"(?:that|this|to|:|the fact)\b", ""),
    ("save-memory", "memory_request", 3,
     r"\b(?:save|store|put|add|write|keep|record|note)\b[^.?!]{0,40}?\b(?:to|in|into|on)\s+(?:your\s+|the\s+"
     r"|my\s+)?(?:memory|memories|memdown|claude\.md|long[- ]term memory)\b", ""),
    ("make-note", "memory_request", 2, r"\bmake a note (?:that|of)\b|\bnote (?:down )?that\b", ""),
    # --- reverting a learned rule ------------------------------------------------------
    ("rule-wrong", "revert", 3,
     r"\b(?:that|this|the) (?:rule|learning|memory|instruction|note|guideline)(?: about [^.]{1,40}?)? (?:was|is)"
     r" (?:wrong|outdated|incorrect|obsolete|bad|no longer (?:true|valid|right))\b", ""),
    ("forget-rule", "revert", 3,
     r"\b(?:forget|unlearn|ignore|drop|remove|delete) (?:the|that|this) (?:rule|learning|memory|instruction"
     r"|note)\b|\bforget what i said about\b", ""),
]
