"""Spanish signal phrases (data only; see ``memdown.signals.patterns``)."""

TYPOS = {
    "esta": "está", "tambien": "también", "despues": "después", "aqui": "aquí", "asi": "así",
    "recuerdalo": "recuérdalo", "guardalo": "guárdalo", "convencion": "convención", "incorreto": "incorrecto",
    "perfeto": "perfecto", "funcona": "funciona", "fuciona": "funciona",
}

COMMAND_VERBS = r"\b(?:ejecuta|corre|usa|lanza|prueba con|con)\s*:?\s*$"

PATTERNS = [
    # --- corrections
    ("mal", "correction", 3,
     r"\b(?:eso|esto)\s+(?:está|es)\s+(?:\w+\s+)?(?:mal|incorrecto|equivocado)\b|\bestá mal\b"
     r"|\bno es (?:correcto|así|lo que (?:pedí|quería))\b|\bte equivocas\b", ""),
    ("en-realidad", "correction", 1, r"{FILL}(?:en realidad|de hecho)\b", "after_reply"),
    ("en-vez-de", "correction", 2, r"\ben (?:vez|lugar) de\b", "after_reply"),
    ("no-uses", "correction", 3, r"\bno (?:uses|utilices|ejecutes|toques|agregues|añadas|pongas|borres|cambies)\b", ""),
    ("deja-de", "correction", 3, r"\bdeja de (?:usar|hacer|añadir|agregar|poner|preguntar|cambiar|borrar)\b", ""),
    ("ya-no", "correction", 2, r"\bya no (?:usamos|se usa|hace falta|sirve|existe|es necesario)\b", ""),
    ("no-hacemos", "correction", 3, r"\b(?:así|eso) no (?:lo )?(?:hacemos|se hace)\b", ""),
    ("no-funciona", "correction", 2,
     r"\b(?:sigue sin funcionar|todavía no funciona|aún no funciona|sigue fallando|no funciona)\b", "after_reply"),
    ("usa-no", "correction", 3, r"\b(?:usa|utiliza)\s+`?[\w@./:+-]+`?,?\s+no\s+`?[\w@./:+-]+", ""),
    # --- conventions
    ("siempre-nunca", "convention", 2,
     r"\b(?:siempre|nunca)\s+(?:\w+\s+)?(?:usa|uses|utiliza|usamos|ejecuta|pon|escribe|hagas|haz|pregunta"
     r"|preguntes|borres|hagamos)\b", ""),
    ("en-este-repo", "convention", 3,
     r"\ben este (?:repo|repositorio|proyecto|código|equipo)\b[^.?]{0,40}?\b(?:usamos|hacemos|siempre|nunca"
     r"|se usa|preferimos)\b", ""),
    ("convencion", "convention", 3, r"\bnuestra (?:convención|norma|regla|práctica) es\b|\bla convención es\b", ""),
    ("va-en", "convention", 2,
     r"\b(?:va|van|está definid[oa]|están definid[oa]s)\s+(?:en|dentro de)\s+(?:la carpeta |el directorio )?"
     r"`?[\w:.~-]*[\\/]", ""),
    ("a-partir-de-ahora", "convention", 3, r"\ba partir de ahora\b|\bde ahora en adelante\b|\ben el futuro\b", ""),
    ("no-preguntes", "convention", 2, r"\bno (?:me )?preguntes\b|\bsin preguntar(?:me)?\b", ""),
    # --- positive
    ("perfecto", "positive", 2,
     r"{FILL}(?:perfecto|exacto|genial|excelente|muy bien|increíble|eso es)\b", "after_action"),
    ("funciona", "positive", 2, r"{FILL}(?:ya |eso |ahora |sí,? )?funciona\b", "after_action neg_guard"),
    # --- memory requests
    ("recuerda", "memory_request", 3,
     r"\brecuerda (?:que|esto|eso)\b|\brecuérdalo\b|\bguárdalo en (?:la |tu )?memoria\b"
     r"|\bguarda (?:esto|eso)?\s*en (?:la |tu )?memoria\b|\bno olvides\b|\banota (?:que|esto)\b", ""),
    # --- reverting a learned rule
    ("regla-mal", "revert", 3,
     r"\besa regla (?:era|estaba|es) (?:incorrecta|mala|errónea)\b|\besa regla está mal\b"
     r"|\bolvida (?:esa|la) regla\b", ""),
]
