"""Keys in any language (issue #27.3): every inflected or glued form of a word for *password*.

The prose rule matched lemmas on word boundaries, so Russian "с паролем …", Finnish "salasanalla …",
Polish "hasłem …", Turkish "parolayla …", Hungarian "jelszóval: …" leaked. The words are now stems
with their endings (``names.PASSWORD_WORDS``, ``PASSWORD_COMPOUND_ENDS``). Each form below is
checked in three shapes: after a space, glued to a colon, and inside brackets/quotes.
"""
from __future__ import annotations

import random
import string

import pytest

from memdown.redact import redact

FORMS: dict[str, list[str]] = {
    "en": ["password", "passwords", "password's", "passphrase", "passcode"],
    "de": ["Passwort", "Passworts", "Passwortes", "Passwörter", "Kennwort", "Kennworts", "WLAN-Passwort",
           "Datenbankpasswort"],
    "nl": ["wachtwoord", "wachtwoorden", "beheerderswachtwoord"],
    "sv": ["lösenord", "lösenordet", "lösenorden"],
    "no": ["passord", "passordet"],
    "da": ["adgangskode", "adgangskoden", "kodeord", "kodeordet"],
    "fi": ["salasana", "salasanan", "salasanalla", "salasanaksi", "salasanasi", "salasanaa", "salasanat"],
    "et": ["parool", "parooli", "parooliga", "salasõna"],
    "fr": ["mot de passe", "mots de passe", "mdp"],
    "es": ["contraseña", "contraseñas", "clave"],
    "pt": ["senha", "senhas", "palavra-passe"],
    "it": ["parola d'ordine"],
    "ro": ["parola", "parolei", "parolă", "parole"],
    "ca": ["contrasenya", "contrasenyes"],
    "tr": ["şifre", "şifresi", "şifreyle", "şifreniz", "şifrenizi", "parola", "parolası", "parolayla", "sifre"],
    "pl": ["hasło", "hasła", "hasłem", "haśle", "hasłu", "haslo"],
    "cs": ["heslo", "hesla", "heslem", "hesle", "heslu"],
    "hu": ["jelszó", "jelszava", "jelszóval", "jelszót", "jelszavak", "jelszavad"],
    "hr": ["lozinka", "lozinku", "lozinkom", "zaporka", "šifra", "šifru"],
    "sl": ["geslo", "gesla", "geslom"],
    "lt": ["slaptažodis", "slaptažodį", "slaptažodžiu"],
    "lv": ["parole", "paroli"],
    "ru": ["пароль", "пароля", "паролем", "паролю", "пароли", "паролей", "паролях"],
    "uk": ["пароль", "паролем", "гасло", "гаслом"],
    "bg": ["парола", "паролата"],
    "sr": ["лозинка", "лозинку", "лозинком"],
    "el": ["κωδικός", "κωδικό", "κωδικού", "συνθηματικό"],
    "vi": ["mật khẩu"],
    "id": ["kata sandi", "kata sandinya", "kata laluan"],
    "sw": ["nenosiri"],
    "zh": ["密码", "密碼", "口令"],
    "ja": ["パスワード", "暗証番号"],
    "ko": ["비밀번호", "패스워드"],
    "ar": ["كلمة المرور", "كلمة السر", "وكلمة المرور", "كلمة مرور"],
    "fa": ["رمز عبور", "گذرواژه"],
    "he": ["סיסמה", "הסיסמה", "והסיסמה"],
    "hi": ["पासवर्ड"],
    "bn": ["পাসওয়ার্ড", "পাসওয়ার্ডটি", "পাসওয়ার্ডের"],
    "th": ["รหัสผ่าน"],
}
SHAPES = ("the {w} {s} was set", "{w}:{s}", "({w}: «{s}»)")


def _secret(rng: random.Random) -> str:
    while True:
        s = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(10, 16)))
        if any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s):
            return s[:5] + rng.choice("!#%_=*") + s[5:]


@pytest.mark.parametrize("lang", sorted(FORMS))
def test_every_form_of_the_password_word_is_a_key(lang):
    rng = random.Random(lang)
    missed = []
    for word in FORMS[lang]:
        for shape in SHAPES:
            secret = _secret(rng)
            text = shape.format(w=word, s=secret)
            if secret[:8] in redact(text) or secret[-6:] in redact(text):
                missed.append(text)
    assert not missed, missed


@pytest.mark.parametrize("text", [
    "Mot de passe SMTP.", "Le mot de passe est dans le coffre.", "La parola chiave è importante.",
    "Die Passwortlänge beträgt mindestens 12 Zeichen.", "Пароль должен быть длиннее 12 символов.",
    "Salasanan pituus on 12 merkkiä.", "the parole hearing is on 2024-05-01.",
    "Şifreyi unuttum, sıfırlama e-postası gönder.", "Hasło: zobacz plik config/secrets.yaml",
])
def test_a_sentence_about_passwords_without_one_is_kept(text):
    assert redact(text) == text
