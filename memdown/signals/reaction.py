"""Reactions and memory requests in every language of the collection (issue 30 item 2).

The phrase tables are per language (en, de, es, zh). Two shapes carry across languages and need no table
of their own:

* an **explicit memory request**: "remember that…", ``<user-memory-input>``, "from now on", "记住",
  "覚えて", "기억해", "запомни", "lembre-se", "ricorda", "zapamiętaj", "hãy nhớ", "تذكر"…;
* a **reaction to what the agent just did**: only after a turn in which the agent acted or answered (the
  transcript's previous turn: its tool calls and its words), a prompt that opens with a refusal ("no, …",
  "non", "нет", "아니", "いや"), asks why the agent did it ("why did you…", "为什么你…", "pourquoi tu…"),
  asks to undo or not touch it ("revert", "改回", "戻して", "откати", "não mexa"), says it was not what
  was asked ("I meant…", "我是说…", "это не то"), or forbids something (``prohibition``: the negative
  imperative of each language, "não faça", "не делай", "nie rób", "non fare", "đừng", "しないで", "لا تفعل"). A "no, still failing" report is not one (a bug report).

Word lists written from general knowledge of the languages, tuned on the dev data only (the v3 dev half and
the v2 collection); ``bench/signals/evaluate_v3.py`` scores them on the test half. Standard library only.
"""
from __future__ import annotations

import re

MEMORY = re.compile(
    r"(?i)<user-memory-input>|(?<!\w)(?:remember(?: that| this|:)|memori[sz]e (?:this|that)|"
    r"save (?:this|that|it) (?:to|in|into) (?:your |the )?memory|"
    r"add (?:this|that|it) to (?:the |your )?(?:claude\.md|memory|rules)|keep in mind|from now on|going forward|"
    r"souviens-toi|rappelle-toi|retiens (?:que|bien)|désormais|recuerda que|de ahora en adelante|"
    r"lembr[ae] (?:que|disso)|lembre-se|daqui pra frente|a partir de agora|ricorda(?:ti)? (?:che|di)|d'ora in poi|"
    r"zapamiętaj|zapamietaj|od teraz|na przyszłość|merk dir|ab jetzt|in zukunft|запомни|впредь|отныне|"
    r"hãy nhớ|ghi nhớ|từ giờ|từ nay|تذكر|احفظ)|"
    r"记住|記住|以后都|以後都|以后每次|以後每次|加到.{0,12}(?:md|记忆|記憶|规则|規則)|写到.{0,8}(?:记忆|記憶|memory|claude)|"
    r"覚えて|今後は|これからは|기억해|앞으로는")

_REFUSAL = re.compile(r"(?i)^\W*(?:no+|nope|nah|non|nein|não|nao|nie|không|нет|لا|不(?!错|錯|客气|好意思)|別|别|아니|いや|"
                      r"いいえ|違う|wrong|stop|wait|hold on|actually)(?:\W|$)")
_STILL = re.compile(r"(?i)\bstill\b|还是|還是|依然|仍然")   # "no, still failing": a report, not a redirection
_WHY_YOU = re.compile(
    r"(?i)\bwhy (?:did|do|are|would|didn't|don't|aren't) you\b|\bpourquoi (?:tu|as-tu|vous|il)\b|"
    r"\bpor qu[eé] (?:hiciste|has|no)\b|\bpor que (?:você|vc|voce)\b|почему (?:ты|вы|не)\b|"
    r"为什么(?:你|把)|為什麼(?:你|把)|怎么又|怎麼又|どうして|なんで")
_UNDO = re.compile(
    r"(?i)\b(?:revert|undo|roll ?back|put (?:it|that) back|go back to|restore the|change it back|"
    r"don't (?:change|touch|delete|remove|add)|do not (?:change|touch|delete|remove|add))\b|"
    r"annule|remets|reviens|desfaz|desfazer|volta (?:como|pra)|não (?:mexa|altere|apague|precisa)|"
    r"nao (?:mexa|altere|apague|precisa)|откати|верни|(?<!\w)не (?:трогай|меняй|удаляй|надо|нужно)|"
    r"cofnij|przywróć|nie (?:zmieniaj|ruszaj|usuwaj)|ripristina|annulla|non (?:toccare|modificare|cambiare)|"
    r"hoàn tác|đừng|撤销|撤銷|还原|還原|回滚|回滾|改回|恢复|恢復|不要(?:改|动|動|删|刪|加)|别(?:改|动|删|加)|"
    r"別(?:改|動|刪|加)|戻して|元に戻|되돌려|원래대로|하지 ?마")
_NOT_ASKED = re.compile(
    r"(?i)\b(?:that'?s (?:not|wrong)|this is (?:not|wrong)|you (?:broke|missed|forgot|misunderstood|misread|deleted|"
    r"removed|changed)|not what i (?:asked|meant|wanted)|i (?:said|meant|asked)|i told you)\b|"
    r"ce n'est pas|c'est faux|tu as (?:cassé|oublié)|j'ai dit|não é isso|nao e isso|você (?:quebrou|esqueceu)|"
    r"eu disse|это не то|я (?:сказал|просил)|ты (?:сломал|забыл)|to nie (?:to|tak)|mówiłem|non è (?:questo|così)|"
    r"ho detto|不是这|不是這|不对|不對|搞错|搞錯|我是说|我是說|我说的是|我說的是|你(?:又|怎么|怎麼)|错了|錯了|"
    r"そうじゃない|違います|言った|아니라|잘못|틀렸")
# A standing instruction: a sentence that says the agent should (not) do something always, never, from now on.
# Strong words are directives wherever they open a clause ("Always run…", "永远不要…", "Всегда …", "NUNCA
# ler…") or sit in a clause that addresses the agent ("I need you to always pick 1"). Weak words also tell a
# story ("every time I run it…", "以后再说" = "later") and count only in a sentence that directs ("let me
# know", "要", "不要", "应该"). Words that also mean "again" (再) or "not" (German "nie" is Polish "not") are
# left out.
_STRONG = re.compile(
    r"(?i)(?<!\w)(?:always|never|toujours|jamais|siempre|nunca|jamás|sempre|mai più|zawsze|nigdy|immer|niemals|"
    r"всегда|никогда|luôn luôn|không bao giờ|دائما|دائمًا|أبدا|أبدًا)(?!\w)|"
    r"永远|永遠|一律|始终|始終|务必|務必|绝对不|絕對不|禁止|以[后後](?:都|每次|不要|别|別|请|請|一律|必须|記得|记得|要)|"
    r"常に|必ず|絶対に|항상|언제나|반드시|절대")
_WEAK = re.compile(
    r"(?i)(?<!\w)(?:in (?:the )?future|for the future|going forward|every ?time|each time|whenever|by default|"
    r"à l'avenir|chaque fois|cada vez|en el futuro|toda vez|da próxima vez|ogni volta|in futuro|"
    r"za każdym razem|w przyszłości|jedes mal|künftig|каждый раз|в будущем|mỗi lần|sau này|كل مرة)(?!\w)|"
    r"每次|总是|總是|いつも|毎回|今後|매번|앞으로")   # 以后 alone is also "after" / "later": strong forms only
STANDING = re.compile(f"{_STRONG.pattern}|{_WEAK.pattern[4:]}")  # either kind (one (?i) flag)
_DIRECTS = re.compile(
    r"(?i)(?<!\w)(?:please|pls|don'?t|do not|must|should|make sure|let me know|need to|ask me|tell me|"
    r"s'il te plaît|il faut|por favor|não|nao|debes|devi|musisz|proszę|нужно|надо|должен|не надо|hãy|đừng)(?!\w)|"
    r"不要|别|別|请|請|必须|必須|应该|應該|应当|記得|记得|都要|一定要|ください|してね|しないで|하세요|해줘|하지 ?마")
_OPENS = re.compile(r"^\W*(?:(?:please|pls|and|also|so|ok|okay|but|then|et|e|y|и|а|но|그리고|还有|然后|以及)\W+)?$", re.I)
_YOU = re.compile(r"(?i)(?<!\w)(?:you|your|tu|toi|vous|você|voce|vc|usted|tú|ты|вы|тебе|вам|bạn|dich|dir|أنت|انت)"
                  r"(?!\w)|你|您|あなた|너|네가|당신")
_COMMA = re.compile(r"[,，、:：]")
_CLAUSE_END = re.compile(r"(?<=[。！？；\n])|(?<=[.!?;])\s+|\s+[-–—]\s+")
_ASKS = re.compile(r"[?？]|[吗嗎呢](?:\W|$)|か(?:\W|$)")
CLAUSE_CHARS = (8, 200)

# A prohibition: the negative imperative, the grammar every language has for "don't do X" (issue 30: "não faça",
# "ne touche pas", "не делай", "nie rób", "non fare", "đừng", "하지 마", "しないで", "no hagas", "لا تفعل"; English "don't"
# and "never" are the phrase tables' and ``candidates._DIRECTIVE``'s, where "I don't see it" is told apart). Negation is a
# closed class in each language and the prohibitive is its grammar, so this is one shape per language, never a
# list of verbs: the negation that opens a clause followed by the imperative (or infinitive, subjunctive)
# form's ending, or the prohibitive particle or suffix where a language has one. Where the prohibitive and a
# report share a form ("não aparece" / "não altere", "لا تعمل"), only the forms a report cannot take are read:
# "Non funziona", "Не работает", "Nie działa", "No funciona", "Não funciona" and "分からないです" are reports.
_OPENER = r"^(?:(?:please|pls|por favor|per favore|s'il te plaît|proszę|пожалуйста|bitte|làm ơn|e|et|y|и|а|но|ma|mas|pero|mais)\W+)?"
_PROHIBITIVE = re.compile(
    _OPENER + r"(?:"
    r"(?:ne\s+|n')(?:\S+\s+){0,3}?(?:pas|jamais|plus|rien)(?!\w)|ne\s+(?:pas|jamais|plus)\s+\w"  # fr: no subject
    r"|non\s+(?:(?:lo|la|li|le|ne|mi|ti|ci)\s+)?\w+(?:[aei]re|[aei]r(?:l[oaie]|ne))(?!\w)"    # it: non fare, non toccarlo
    r"|n[ãa]o\s+(?:(?:me|te|o|a|os|as|se|lhe)\s+)?\w{2,}(?:ça|que|gue|nha|ie|ize|ione|ere)(?!\w)"  # pt: não faça, não altere
    r"|(?:никогда\s+)?не\s+\w{2,}(?:[ая]й|ей|уй|ой|йте|(?<!л)и|ите|ь|ьте)(?!\w)"              # ru: не делай, не пиши
    r"|(?:никогда\s+)?не\s+(?:надо|нужно|стоит)\s+\w+(?:ть|ти|чь)(?:ся)?(?!\w)"            # ru: не надо трогать
    r"|(?:nigdy\s+)?nie\s+\w+(?:aj|ej|uj|ij|yj|jcie|cie|ób|ać|ić|eć|yć|uć)(?!\w)"           # pl: nie rób, nie zmieniaj
    r"|(?:nicht|keine?[nrms]?)\s+(?:\S+\s+){0,4}?\w{2,}en\W*$"                              # de: keine Emojis verwenden
    r"|không được\s+\w"                                                                   # vi
    r"|(?:من فضلك\s+)?لا\s+ت\w{2,}|(?:يجب|ينبغي)\s+(?:ألا|عدم)"                             # ar: لا تستخدم
    r")|(?<!\w)(?:đừng|chớ)\s+\w|(?<!\w)cấm\s+\w"                                           # vi particles, anywhere
    r"|지\s?(?:마|말)|금지"                                                                  # ko: 하지 마, 쓰지 말고
    r"|ないで(?!す)|ないこと|ないように|するな(?:\W|$)|禁止"                                      # ja (ないです: a statement)
    r"|(?<![要需])不要(?!紧|緊)|不许|不許|不准|切勿|千万别|千萬別|(?<![特区區分识識类類级級告个個差])[别別](?![人的处處])",        # zh
    re.IGNORECASE)
# Spanish "no hagas eso", "no uses npm" (the second person's subjunctive), never an English "no changes to the API":
# an object follows, and no English function word is in the clause.
_ES_PROHIBITIVE = re.compile(_OPENER + r"no\s+(?:(?:me|te|lo|la|los|las|le|les|se|nos)\s+)?\w{2,}(?:es|as)\s+\w", re.I)
_ENGLISH = re.compile(r"(?i)(?<!\w)(?:the|to|is|are|was|of|for|in|on|this|that|with|yet|any|more|and|or|at)(?!\w)")


# "Don't forget to …" in any language is a reminder for the task at hand, not a prohibition.
_FORGET = re.compile(r"(?i)oubli|esque[cç]|dimentic|забу|zapom|olvid|quên|잊|忘")


def _forbids(clause: str) -> bool:
    """The clause forbids something: it has the shape and is more than the bare word ("不要，现在读…" opens with "No,")."""
    clause = clause.strip(" \t.!。！").lower()
    if len(clause) < 3 or _FORGET.search(clause):
        return False
    return bool(_PROHIBITIVE.search(clause)) or bool(_ES_PROHIBITIVE.search(clause)) and not _ENGLISH.search(clause)


def prohibition(text: str) -> str:
    """The first clause of ``text`` that forbids something in any language of the collection ('' for none):
    it opens with the negative imperative (``_PROHIBITIVE``) or holds a prohibitive particle, asks nothing,
    and is one rule long. The user's own words."""
    if len(text) > MAX_CHARS:
        return ""
    for sentence in _CLAUSE_END.split(text):
        sentence = " ".join(sentence.split())
        if not 4 <= len(sentence) <= CLAUSE_CHARS[1] or _ASKS.search(sentence):
            continue
        if any(_forbids(clause) for clause in _COMMA.split(sentence)):
            return sentence
    return ""

HEAD = 300            # a reaction is said first; a long prompt's later sentences are a new task
MAX_CHARS = 1200      # longer prompts are specs or pastes


def memory_request(text: str) -> bool:
    """An explicit request to keep something (any language of the collection); ``text`` is the user's own words."""
    return bool(MEMORY.search(text[:400]))


def _said_to_agent(sentence: str) -> bool:
    """A strong standing word opening a clause or in a clause that addresses the agent; a weak one in a
    sentence that directs."""
    for clause in _COMMA.split(sentence):
        word = _STRONG.search(clause)
        if word and (_OPENS.match(clause[:word.start()]) or _YOU.search(clause)):
            return True
    return bool(_WEAK.search(sentence)) and bool(_DIRECTS.search(sentence))


def standing_clause(text: str) -> str:
    """The first sentence of ``text`` that states a standing instruction ('' for none): it holds a standing
    word (``STANDING``), asks nothing, and is one rule long. The user's own words, in their language."""
    if len(text) > MAX_CHARS:
        return ""
    for sentence in _CLAUSE_END.split(text):
        sentence = " ".join(sentence.split())
        if CLAUSE_CHARS[0] <= len(sentence) <= CLAUSE_CHARS[1] and not _ASKS.search(sentence) \
                and _said_to_agent(sentence):
            return sentence
    return ""


def reaction(text: str, *, agent_acted: bool) -> str:
    """Which reaction to the agent's last turn ``text`` opens with ('' for none): refusal, why, undo, not-asked, prohibition.
    Only after a turn in which the agent acted or answered (``agent_acted``)."""
    if not agent_acted or len(text) > MAX_CHARS:
        return ""
    head = text[:HEAD]
    if _REFUSAL.search(head) and len(head.split()) >= 2 and not _STILL.search(head[:40]):
        return "refusal"
    for name, pattern in (("why", _WHY_YOU), ("undo", _UNDO), ("not-asked", _NOT_ASKED)):
        if pattern.search(head):
            return name
    return "prohibition" if prohibition(head) else ""
