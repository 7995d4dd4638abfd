"""German signal phrases (data only; see ``memdown.signals.patterns``)."""

TYPOS = {
    "nich": "nicht", "nciht": "nicht", "nihct": "nicht", "fasch": "falsch", "flasch": "falsch",
    "imer": "immer", "immmer": "immer", "bitt": "bitte", "funktionert": "funktioniert",
    "funktoniert": "funktioniert", "funzt": "funktioniert", "klapt": "klappt", "stadt": "statt",
    "eigendlich": "eigentlich", "perfeckt": "perfekt",
}

COMMAND_VERBS = r"\b(?:führ(?:e)?|starte|nutze|verwende|benutze|nimm|teste mit|baue mit|mit|über)\s*:?\s*$"

_VERB = r"(?:verwenden|benutzen|nutzen|nehmen|schreiben|machen|ausführen|committen|pushen|fragen|testen|löschen)"

PATTERNS = [
    # --- corrections
    ("nein", "correction", 2, r"{FILL}(?:nein|nee|nö)\s*[,.!;:\u2014-]+", "not_after_question after_reply"),
    ("nein-verb", "correction", 2,
     r"{FILL}(?:nein|nee)\s+(?:nimm|verwende|benutze|nutze|mach|das|die|der|bitte|nicht|so)\b",
     "not_after_question after_reply"),
    ("falsch", "correction", 3,
     r"\b(?:das|dies|es)\s+(?:ist|war)\s+(?:\w+\s+)?(?:falsch|nicht richtig|nicht korrekt|verkehrt)\b"
     r"|\bdas stimmt (?:so )?nicht\b", ""),
    ("falsche", "correction", 2, r"\bfalsch(?:e|en|er|es)?\s+(?:datei|befehl|ordner|weg|ansatz|stelle|branch|pfad|version)\b",
     "after_reply"),
    ("eigentlich", "correction", 1, r"{FILL}(?:eigentlich|tatsächlich)\b", "after_reply"),
    ("statt", "correction", 2, r"\b(?:statt|anstatt|stattdessen|anstelle)\b", "after_reply"),
    ("nimm-nicht", "correction", 3, r"\b(?:nimm|verwende|benutze|nutze)\s+`?[\w@./:+-]+`?,?\s+(?:und\s+)?nicht\b", ""),
    ("kein", "correction", 3,
     r"\b(?:verwende|benutze|nutze|nimm)\s+(?:bitte\s+)?(?:kein|keine|keinen|nie|niemals|nicht)\b"
     r"|\bnicht\s+(?:\S+\s+)?(?:verwenden|benutzen|nutzen|nehmen)\b", ""),
    ("hoer-auf", "correction", 3, r"\bhör(?:e)? (?:bitte )?auf\b", ""),
    ("nicht-mehr", "correction", 1, r"\bnicht mehr\b", "after_reply"),
    ("machen-wir-nicht", "correction", 3, r"\b(?:so|das) machen wir (?:das )?(?:hier )?(?:nicht|nie|anders)\b", ""),
    ("geht-nicht", "correction", 2,
     r"\b(?:funktioniert|geht|klappt)\s+(?:\w+\s+)?(?:immer noch |noch |trotzdem |leider |weiterhin )?nicht\b",
     "after_reply"),
    ("gesagt", "correction", 2, r"\bich (?:habe|hab) (?:doch |dir )?(?:gesagt|geschrieben)\b|\bwie gesagt\b", ""),
    ("nicht-gemeint", "correction", 3,
     r"\bdas (?:wollte|meinte) ich nicht\b|\bnicht das,? was ich\b|\bnicht so gemeint\b|\brückgängig\b", ""),
    # --- conventions
    ("immer-nie", "convention", 2,
     r"\b(?:immer|nie|niemals)\s+(?:\w+\s+)?" + _VERB + r"\b"
     r"|\b(?:verwende|benutze|nutze|nimm|schreib|mach)\s+(?:bitte\s+)?(?:immer|nie|niemals)\b", ""),
    ("in-diesem-repo", "convention", 3,
     r"\bin diesem (?:repo|repository|projekt|code|team)\b[^.?]{0,40}?\b(?:wir|immer|nie|verwenden|nutzen"
     r"|benutzen|machen)\b|\bbei uns\b", ""),
    ("konvention", "convention", 3,
     r"\bunsere? (?:konvention|regel|richtlinie|standard|vorgabe)\w* (?:ist|sind|lautet)\b|\bkonvention ist\b", ""),
    ("gehoert-in", "convention", 2,
     r"\b(?:gehört|gehören|kommt|kommen|liegt|liegen)\s+(?:\w+\s+)?(?:in|ins|nach|unter)\s+(?:den |das |die )?"
     r"(?:ordner |verzeichnis )?`?[\w.~-]*/", ""),
    ("wir-verwenden", "convention", 2,
     r"\bwir (?:verwenden|benutzen|nutzen|nehmen|machen|schreiben) (?:immer|hier|grundsätzlich|nur)\b"
     r"|\bwir \w+en (?:immer|nie|niemals|grundsätzlich)\b", ""),
    ("ab-jetzt", "convention", 3, r"\bab (?:jetzt|sofort)\b|\bin zukunft\b|\bkünftig\b|\bzukünftig\b", ""),
    ("nicht-fragen", "convention", 2, r"\b(?:frag|frage) (?:mich )?nicht\b|\bohne (?:zu )?fragen\b", ""),
    # --- positive
    ("perfekt", "positive", 2,
     r"{FILL}(?:perfekt|super|genau|klasse|toll|prima|sehr gut|spitze|top|passt|wunderbar|klappt)\b",
     "after_action"),
    ("klappt", "positive", 2,
     r"\b(?:klappt|funktioniert|geht|läuft) (?:jetzt|nun|wieder|endlich|super|perfekt|einwandfrei)\b"
     r"|\bes (?:klappt|funktioniert)\b", "after_action neg_guard"),
    # --- memory requests
    ("merk-dir", "memory_request", 3,
     r"\bmerk(?:e)? (?:dir|euch)\b|\bmerken sie sich\b|\bvergiss nicht\b"
     r"|\b(?:speicher|speichere|speichern|nimm|schreib)\w*\s+(?:das|dies|es)\w*\s+(?:\w+\s+)?(?:im|ins|in den|in die|in das)"
     r"\s+(?:gedächtnis|memory|speicher|claude\.md)\b", ""),
    # --- reverting a learned rule
    ("regel-falsch", "revert", 3, r"\bdie regel (?:\w+ )*?(?:war|ist) falsch\b|\bvergiss (?:die|diese) regel\b", ""),
]
