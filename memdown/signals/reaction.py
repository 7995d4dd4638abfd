"""Reactions and memory requests in every language of the collection (issue 30 item 2).

The phrase tables are per language (en, de, es, zh). Two shapes carry across languages and need no table
of their own:

* an **explicit memory request**: "remember that…", ``<user-memory-input>``, "from now on", "记住",
  "覚えて", "기억해", "запомни", "lembre-se", "ricorda", "zapamiętaj", "hãy nhớ", "تذكر"…;
* a **reaction to what the agent just did**: only after a turn in which the agent acted or answered (the
  transcript's previous turn: its tool calls and its words), a prompt that opens with a refusal ("no, …",
  "non", "нет", "아니", "いや"), asks why the agent did it ("why did you…", "为什么你…", "pourquoi tu…"),
  asks to undo or not touch it ("revert", "改回", "戻して", "откати", "não mexa"), or says it was not what
  was asked ("I meant…", "我是说…", "это не то"). A "no, still failing" report is not one (a bug report).

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
HEAD = 300            # a reaction is said first; a long prompt's later sentences are a new task
MAX_CHARS = 1200      # longer prompts are specs or pastes


def memory_request(text: str) -> bool:
    """An explicit request to keep something (any language of the collection); ``text`` is the user's own words."""
    return bool(MEMORY.search(text[:400]))


def reaction(text: str, *, agent_acted: bool) -> str:
    """Which reaction to the agent's last turn ``text`` opens with ('' for none): refusal, why, undo, not-asked.
    Only after a turn in which the agent acted or answered (``agent_acted``)."""
    if not agent_acted or len(text) > MAX_CHARS:
        return ""
    head = text[:HEAD]
    if _REFUSAL.search(head) and len(head.split()) >= 2 and not _STILL.search(head[:40]):
        return "refusal"
    for name, pattern in (("why", _WHY_YOU), ("undo", _UNDO), ("not-asked", _NOT_ASKED)):
        if pattern.search(head):
            return name
    return ""
