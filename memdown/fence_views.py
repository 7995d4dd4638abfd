"""What the fence's flags judge besides the text as written: its decoded forms, and words of other languages.

An instruction can hide from a pattern that reads the text as written: behind HTML or numeric entities
(``&#105;gnore``), percent-encoding (``%69gnore``), a base64 run, letters spaced apart (``i g n o r e``),
or simply in another language. :func:`views` gives every decoded form of a text (each only when the
text has what it decodes, so ordinary text pays one cheap test per kind); ``fence.flags`` runs its
patterns over each and over the whole text with its lines joined, so an instruction split over two
lines is judged as one.

:data:`CLASSES` judges the other languages by class, not phrase by phrase: an *override* is a verb of
ignoring/forgetting near a noun for instructions/rules/prompt, in either order (Chinese, Japanese and
Korean put the object first); a *prompt* claim is "from now on", "you are now", "act as", "system
prompt" and their equivalents; *secrecy* is a verb of telling near "the user" with a negation before
it. The word lists cover the languages of ``../shared`` (English, Chinese, Portuguese, Spanish, French,
Russian, Korean, Japanese, German); a language is added by adding its words to the classes.

Also flagged: **turn markers** (a line starting ``Human:`` or ``Assistant:``, the chat
transcript format a model may take for a real turn) and **fake memdown labels** (any text imitating the
fence's own words: ``[memdown: verified]``, ``[flagged: …]``, "Recorded notes from memdown").

Linear time: every pattern is a bounded window or an alternation of words; decoding is one pass.
Standard library only; nothing compiled at import.
"""
from __future__ import annotations

import re

from .lazyre import LazyPattern

# --- decoded views -------------------------------------------------------------------------------------
_ENTITY = LazyPattern(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_PERCENT = LazyPattern(r"%[0-9a-fA-F]{2}")
_BASE64_RUN = LazyPattern(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
# Single letters or digits with the same separator between each, at least three: "i g n o r e", "i.g.n.o.r.e"
# (another separator, such as two spaces, ends the word).
_SPACED = LazyPattern(r"(?<![^\W_])[^\W_](?P<sep>[ ._*·\-])(?:[^\W_](?P=sep))+[^\W_](?![^\W_])")
_LOWER = LazyPattern(r"[a-z]")
_UPPER_OR_DIGIT = LazyPattern(r"[A-Z0-9]")
_BASE64_CHARS_MAX = 20_000  # decode runs of at most this much of a text (bounds the work on huge input)


def _entities(text: str) -> str:
    import html  # only for text with an entity

    return html.unescape(text)


def _percent(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text, errors="replace")


def _base64(text: str) -> str:
    """Each base64 run that decodes to readable UTF-8 text, decoded in place; other runs left as they are."""
    import binascii  # a built-in module (base64 would bring struct)

    budget = [_BASE64_CHARS_MAX]

    def decode(match: re.Match[str]) -> str:
        run = match.group(0)
        if budget[0] <= 0 or not (_LOWER.search(run) and _UPPER_OR_DIGIT.search(run)):
            return run
        budget[0] -= len(run)
        body = run.rstrip("=").replace("-", "+").replace("_", "/")
        try:
            plain = binascii.a2b_base64(body + "=" * (-len(body) % 4), strict_mode=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return run
        letters = sum(ch.isalpha() or ch.isspace() for ch in plain)
        return f" {plain} " if plain.isprintable() and letters >= 0.7 * len(plain) else run

    return _BASE64_RUN.sub(decode, text)


def _despaced(text: str) -> str:
    return _SPACED.sub(lambda m: m.group(0).replace(m.group("sep"), ""), text)


def views(text: str) -> list[str]:
    """The decoded forms of ``text`` worth judging besides itself (empty for ordinary text)."""
    out: list[str] = []
    if "&" in text and _ENTITY.search(text):
        out.append(_entities(text))
    if "%" in text and _PERCENT.search(text):
        out.append(_percent(text))
    if len(text) >= 16 and _BASE64_RUN.search(text):
        decoded = _base64(text)
        if decoded != text:
            out.append(decoded)
    if _SPACED.search(text):
        out.append(_despaced(text))
    return [view for view in out if view != text]


# --- classes of words, many languages ------------------------------------------------------------------
def _words(*groups: str) -> str:
    return "|".join(w for group in groups for w in group.split("|") if w)


_IGNORE = _words(
    "ignore|ignores|ignoring|disregard|forget|override|bypass",  # en
    "ignora|ignore|ignorar|ignoren|olvida|olvide|olvidar|olvides|omite|descarta|desconsidera|desconsidere",  # es/pt
    "esqueça|esqueca|esquece|esquecer|ignorez|ignorer|oublie|oubliez|oublier",  # pt/fr
    "ignoriere|ignorieren|ignoriert|vergiss|vergesst|vergessen|missachte|missachten",  # de
    "игнорируй|игнорируйте|игнорировать|проигнорируй|забудь|забудьте|забыть",  # ru
)
# Scripts without spaces between words: no word boundaries, the verb before or after its object.
_IGNORE_CJK = "忽略|忽视|忽視|无视|無視|忘记|忘掉|忘記|不要理会|不要理會|忘れ|무시|잊어|잊으"
_INSTRUCTIONS = _words(
    "instructions?|rules|prompts?|guidelines|directives",  # en (and fr "instructions")
    "instrucciones|indicaciones|reglas|directrices|instruções|instrucoes|regras|diretrizes",  # es/pt
    "consignes|règles|regles|directives",  # fr
    "anweisungen|anweisung|regeln|instruktionen|vorgaben|richtlinien",  # de
    "инструкции|инструкций|инструкциям|указания|указаний|правила|правил",  # ru
)
_INSTRUCTIONS_CJK = "指令|指示|规则|規則|提示词|提示詞|命令|ルール|プロンプト|지시|지침|명령|규칙|프롬프트"
_PRIOR_CJK = "之前|以前|先前|上面|上述|所有|全部|前の|上記|すべて|全て|이전|위의|모든|앞의|앞서"
_PRIOR = _words(
    "previous|prior|above|earlier|preceding|all|any|other|your|the",  # en
    "anteriores|anterior|previas|todas|todos|tus|sus|las|os|as|suas",  # es/pt
    "précédentes|precedentes|toutes|tous|les|vos|tes",  # fr
    "vorherigen|vorherige|bisherigen|alle|deine|ihre|die",  # de
    "предыдущие|прежние|все|свои|эти",  # ru
)
_NOW = _words(
    r"from now on|you are now|act as|new instructions?|(?:system|developer)\s+(?:prompt|message|instructions?)",
    r"a partir de ahora|ahora eres|act[uú]a como|a partir de agora|agora voc[eê] [eé]|aja como|atue como",
    r"[àa] partir de maintenant|d[ée]sormais|tu es maintenant|vous [êe]tes maintenant|agis comme|agissez comme",
    r"ab jetzt|von nun an|ab sofort|du bist jetzt|handle als|agiere als|systemprompt",
    r"с этого момента|отныне|теперь ты|ты теперь|действуй как|системн\w+ (?:промпт|подсказк\w+|инструкци\w+)",
)
_NOW_CJK = _words(
    r"从现在开始|從現在開始|你现在是|你現在是|系统提示词|系統提示詞|あなたは今|システムプロンプト|"
    r"너는 이제|당신은 이제|시스템 프롬프트",
)
_TELL = _words("tell|inform|mention|show|reveal|digas|diga|cuentes|menciones|contes|conte|mencione|dis|dites|"
               "mentionne|sag|sage|erzähl|erzahl|erwähne|erwahne|говори|сообщай|рассказывай|упоминай")
_USER = _words("user|usuario|usuário|utilisateur|benutzer|nutzer|пользовател\\w*")
_NEGATION = _words("not|don't|never|no|não|nao|ne|nunca|jamais|nicht|kein|не|никогда")
_USER_CJK = "用户|用戶|ユーザー|사용자"

CLASSES: tuple[tuple[str, LazyPattern], ...] = (
    ("override", LazyPattern(
        # letters spaced one apart throughout come back as one word: "ignoreallpreviousinstructions"
        r"(?:ignore|disregard|forget|override)(?:all|any|the|previous|prior|above|earlier|your|other){1,3}"
        r"(?:instructions?|rules|prompts?|guidelines)|"
        rf"\b(?:{_IGNORE})\b[^.\n]{{0,40}}?\b(?:{_PRIOR})\b[^.\n]{{0,30}}?\b(?:{_INSTRUCTIONS})\b"
        rf"|(?:{_IGNORE_CJK})[^。\n]{{0,6}}?(?:{_PRIOR_CJK})[^。\n]{{0,10}}?(?:{_INSTRUCTIONS_CJK})"
        rf"|(?:{_PRIOR_CJK})[^。\n]{{0,8}}?(?:{_INSTRUCTIONS_CJK})[^。\n]{{0,10}}?(?:{_IGNORE_CJK})",
        re.IGNORECASE)),
    ("prompt", LazyPattern(rf"\b(?:{_NOW})\b|{_NOW_CJK}", re.IGNORECASE)),
    ("secrecy", LazyPattern(
        rf"\b(?:{_NEGATION})\b[^.\n]{{0,20}}?\b(?:{_TELL})\b[^.\n]{{0,30}}?\b(?:{_USER})"
        rf"|\b(?:{_TELL})\b[^.\n]{{0,20}}?\b(?:{_USER})\b[^.\n]{{0,12}}?\b(?:nichts|nicht|nada|rien)\b"
        rf"|(?:不要|别|別|不许|不許)(?:告诉|告訴|透露|说|說)[^。\n]{{0,4}}(?:{_USER_CJK})"
        rf"|(?:{_USER_CJK})[^。\n]{{0,8}}?(?:言わない|伝えない|教えない|말하지|알리지)", re.IGNORECASE)),
    ("turn-marker", LazyPattern(r"(?:^|\n)[ \t>*_#-]*(?:human|assistant)[ \t*_]*:", re.IGNORECASE)),
    ("fake-label", LazyPattern(
        r"\[\s*(?:memdown|flagged)\b[^\]\n]{0,80}\]|recorded notes from memdown|"
        r"memdown[ \t]*[:\-][ \t]*(?:verified|trusted|approved|safe|system|instructions?)\b", re.IGNORECASE)),
)
