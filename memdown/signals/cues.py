"""Language-independent cue features for the learned detector: small multilingual lexicons of the
markers a correction (or a standing rule) is made of, and of what the agent's turn before did.

The phrase tables match whole phrases of a few languages; these cue groups are the building blocks
(negation, contrast, "why", "should", "already", "remember/always", approval, "go on") in the eight
languages the corpus holds: English, Chinese (simplified and traditional), Japanese, Korean, French,
Spanish, Russian and Bulgarian. They are written from general knowledge of those languages, not
from the labelled prompts, and each group is one feature (present / at the start), so a word that
is missing costs recall in one language rather than teaching the model a spurious token.

The agent's turn before: did it ask a question, offer to do something, claim success, run tools.
A correction answers something the agent just did or said. Standard library only.
"""
from __future__ import annotations

import math
import re

# Latin/Cyrillic words are matched on word boundaries; CJK strings anywhere (no spaces to split on);
# "_" stands for a space inside one entry.
_W = r"(?<![\w])(?:{})(?![\w])"


def _rx(words: str, cjk: str = "") -> re.Pattern[str]:
    parts = []
    if words.split():
        parts.append(_W.format("|".join(w.replace("_", " ") for w in words.split())))
    if cjk.split():
        parts.append("|".join(w.replace("_", " ") for w in cjk.split()))
    return re.compile("|".join(parts), re.IGNORECASE)


# The user's prompt ------------------------------------------------------------------------------
USER_CUES: dict[str, re.Pattern[str]] = {
    "negation": _rx(
        "no nope not don't dont doesn't didn't isn't aren't wasn't shouldn't won't can't never nothing"
        " non ne pas jamais rien n'est"               # fr
        " nada nunca tampoco"                         # es ("no" above)
        " не нет ни никогда ничего"                   # ru
        " няма недей"                                 # bg ("не" above)
        " 안 못",                                      # ko words (boundaries: inside words they are not negation)
        "不 没 沒 别 別 莫 无需 無需 未"                 # zh
        " ない なく ません じゃない ではない いいえ"     # ja
        " 아니 않 없"),                            # ko
    "wrong": _rx(
        "wrong incorrect mistake mistaken broke broken misread misunderstood"
        " faux erreur trompé incorrect"
        " mal incorrecto equivocado error"
        " неправильно неверно ошибка ошибся неправилно грешно грешка",
        "错 錯 不对 不對 搞错 搞錯 误 誤 不是这 不是這"
        " 違う 間違 ちがう"
        " 틀렸 틀린 잘못 아닌데 아니라"),
    "contrast": _rx(
        "instead rather actually but however though wait hmm"
        " plutôt mais pourtant lieu fait"
        " pero sino mejor lugar vez realidad"
        " вместо но лучше однако всё-таки все-таки вообще а_не а_то"
        " вместо по-добре обаче всъщност",
        "而是 其实 其實 可是 但是 但 还是 還是 改成 改为 改為 应该是 應該是"
        " じゃなくて ではなく でも むしろ 代わりに けど"
        " 말고 대신 근데 하지만 그런데 오히려"),
    "why": _rx(
        "why how_come pourquoi qué por_qué porqué почему зачем защо",
        "为什么 為什麼 为何 為何 怎么 怎麼 干嘛 幹嘛 难道 難道 不是有 不就"
        " なぜ どうして なんで 왜 어째서"),
    "should": _rx(
        "should must need needs have_to supposed ought"
        " faut devrait doit dois devez"
        " debe debes deberías deberia hay_que tiene_que"
        " надо нужно должен должна должно должны следует трябва",
        "应该 應該 应当 必须 必須 需要 得要 要求"
        " べき ないと なければ 必要"
        " 해야 돼야 되어야 야_해 야_돼 야해 야돼 야지 필요"),
    "stop": _rx(
        "stop don't dont never avoid quit remove revert undo"
        " arrête arrêtez jamais enlève supprime annule"
        " deja para nunca quita elimina deshaz"
        " хватит прекрати перестань убери удали откати спри махни",
        "不要 别 別 不用 不必 停 去掉 删掉 刪掉 撤销 撤銷 还原 還原 回滚 回滾"
        " しないで やめて 止めて 消して 戻して"
        " 하지마 하지_마 말아 멈춰 그만 지워 되돌려"),
    "already": _rx(
        "already existing exists we_have we've there's déjà existe ya уже вече",
        "已经 已經 已有 本来 本來 原本 もう すでに 既に 이미 벌써 원래"),
    "standing": _rx(
        "remember always every_time from_now_on going_forward whenever in_future next_time memory"
        " rappelle souviens retiens toujours désormais chaque_fois"
        " recuerda siempre cada_vez a_partir_de_ahora"
        " запомни помни всегда впредь отныне каждый_раз запомни винаги занапред",
        "记住 記住 记得 記得 以后 以後 每次 总是 總是 永远 永遠 一律"
        " 覚えて 今後 いつも 毎回 常に"
        " 기억 앞으로 항상 매번 언제나"),
    "approve": _rx(
        "great thanks thank perfect nice cool awesome good works worked excellent amazing sweet lgtm yes yep"
        " merci parfait super génial bien oui"
        " gracias perfecto genial bien sí"
        " спасибо отлично супер хорошо да благодаря страхотно добре 네",
        "好的 很好 太好 谢谢 謝謝 完美 可以了 不错 不錯 没问题 沒問題"
        " ありがとう いいね 完璧 素晴らしい 良い はい"
        " 좋아 좋네 감사 고마워 완벽"),
    "proceed": _rx(
        "continue proceed go_ahead next start do_it let's ok okay"
        " continue vas-y allez commence"
        " continúa sigue adelante empieza hazlo"
        " продолжай давай начни продължи давай",
        "继续 繼續 开始 開始 下一步 执行 執行 做吧"
        " 続けて 進めて 始めて お願いします"
        " 계속 진행 시작 해줘"),
    "we_i": _rx(
        "i we my our me us je nous mon notre yo nosotros mi я мы мой наш аз ние",
        "我 我们 我們 私 僕 俺 저 제 우리"),
}

# The agent's last words before the prompt --------------------------------------------------------
AGENT_CUES: dict[str, re.Pattern[str]] = {
    "offer": _rx(
        "want_me would_you_like shall_i should_i do_you_want let_me_know which_option ready_to",
        "要我 需要我 要不要 你想 你觉得 你覺得 要 吗 嗎 しましょうか ますか 할까요 원하시"),
    "claim": _rx(
        "done fixed complete completed successfully success implemented updated created added works passing"
        " all_tests now_works ready terminé fait listo hecho готово сделано исправлено готово",
        "✅ 完成 已完成 成功 已修复 已修復 已更新 已经 已經 完了 できました 修正しました 완료 수정했"),
}


def _frac_cjk(text: str) -> float:
    cjk = sum(1 for ch in text if "\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff"
              or "\uac00" <= ch <= "\ud7af")
    return cjk / max(1, len(text))


def user_cue_features(text: str) -> list[float]:
    """Per cue group: present anywhere, present in the first 40 characters; then the prompt's shape."""
    head = text[:40]
    out: list[float] = []
    for rx in USER_CUES.values():
        out.append(1.0 if rx.search(text) else 0.0)
        out.append(1.0 if rx.search(head) else 0.0)
    words = max(1, len(text.split()) if _frac_cjk(text) < 0.2 else len(text) // 2)
    out += [
        1.0 if "?" in text or "？" in text else 0.0,
        1.0 if text.rstrip().endswith(("?", "？")) else 0.0,
        1.0 if words <= 6 else 0.0,
        1.0 if words >= 60 else 0.0,
        min(1.0, math.log1p(words) / 6.0),
        min(1.0, text.count("\n") / 10.0),
        1.0 if re.search(r"[A-Z]{4,}", text) else 0.0,  # shouting ("WRONG", "NO")
        1.0 if "!" in text or "！" in text else 0.0,
    ]
    return out


def agent_cue_features(said: str, tools: int, first: bool) -> list[float]:
    """What the agent's turn before did: asked, offered, claimed success, ran tools (none at the start)."""
    tail = said[-400:]
    return [
        1.0 if first else 0.0,
        1.0 if tail.rstrip().endswith(("?", "？")) else 0.0,
        1.0 if "?" in tail or "？" in tail else 0.0,
        1.0 if AGENT_CUES["offer"].search(tail) else 0.0,
        1.0 if AGENT_CUES["claim"].search(tail) else 0.0,
        1.0 if tools == 0 else 0.0,
        1.0 if tools >= 3 else 0.0,
        min(1.0, math.log1p(tools) / 4.0),
        min(1.0, math.log1p(len(said)) / 8.0),
    ]


def cue_features(text: str, said: str, tools: int, first: bool) -> list[float]:
    """The user's cue groups and shape, the agent's turn before, and their crossings (a negation or a
    "why" right after the agent claimed success or acted is the shape of a correction)."""
    user = user_cue_features(text)
    agent = agent_cue_features(said, tools, first)
    names = list(USER_CUES)
    has = {name: user[2 * k] for k, name in enumerate(names)}
    acted = 1.0 if tools >= 1 else 0.0
    claimed, asked = agent[4], agent[2]
    cross = [has[n] * acted for n in ("negation", "wrong", "contrast", "why", "should", "stop", "already")]
    cross += [has[n] * claimed for n in ("negation", "wrong", "why")]
    cross += [has[n] * asked for n in ("negation", "contrast", "approve", "proceed")]
    return user + agent + cross


N_CUE_FEATURES = len(cue_features("", "", 0, True))
