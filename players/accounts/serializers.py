"""What the account endpoints take and answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players import id_tokens
from players.accounts import email_codes
from players.accounts.proofs import Proof
from players.models import Identity
from players.serializers import DeviceNameField
from unoservice.fields import StrictCharField, StrictSerializer

MAX_PASSWORD_LENGTH = 256
MAX_ID_TOKEN_LENGTH = 8192
MAX_NONCE_LENGTH = 256


@extend_schema_field(
    {
        "type": "string",
        "format": "email",
        "maxLength": email_codes.MAX_EMAIL_LENGTH,
        "description": "an email address, matched without regard to case (at most "
        f"{email_codes.MAX_EMAIL_LENGTH} characters once trimmed)",
    }
)
class EmailField(StrictCharField):
    def to_internal_value(self, data: Any) -> str:
        return email_codes.normalized_email(super().to_internal_value(data))


@extend_schema_field(
    {
        "type": "string",
        "maxLength": 32,
        "pattern": rf"^[ -]*([0-9][ -]*){{{email_codes.CODE_DIGITS}}}$",
        "description": f"the {email_codes.CODE_DIGITS}-digit code from the mail (spaces "
        "and dashes between the digits are ignored)",
    }
)
class CodeField(StrictCharField):
    def to_internal_value(self, data: Any) -> str:
        typed = super().to_internal_value(data)
        # The length is the typed text's (the validators see the digits alone).
        if self.max_length is not None and len(typed) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        code = "".join(c for c in typed if c not in " -")
        if not email_codes.is_code_shaped(code):
            raise serializers.ValidationError(f"{email_codes.CODE_DIGITS} digits")
        return code


# Text fields refuse NUL (as Django's every CharField does).
NO_NUL = "^[^\\u0000]+$"


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": MAX_PASSWORD_LENGTH, "pattern": NO_NUL}
)
class PasswordField(StrictCharField):
    pass


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": MAX_ID_TOKEN_LENGTH, "pattern": NO_NUL}
)
class IdTokenField(StrictCharField):
    pass


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": MAX_NONCE_LENGTH, "pattern": NO_NUL}
)
class NonceField(StrictCharField):
    pass


def _password_field(**options: Any) -> StrictCharField:
    return PasswordField(
        min_length=1,
        max_length=MAX_PASSWORD_LENGTH,
        trim_whitespace=False,
        style={"input_type": "password"},
        **options,
    )


def identity_json(identity: Identity) -> dict[str, Any]:
    """An identity as `players.serializers.IdentityOut` shows it."""
    return {
        "id": str(identity.pk),
        "kind": identity.kind,
        "email": identity.email,
        "created_at": identity.created_at,
        "last_used_at": identity.last_used_at,
    }


def identities_json(player_id: Any) -> list[dict[str, Any]]:
    """The player's identities, oldest first, as `IdentityOut` shows them."""
    return [identity_json(i) for i in Identity.objects.filter(player_id=player_id)]


class EmailCodeIn(StrictSerializer):
    email = EmailField(max_length=320)


class EmailCodeSentOut(serializers.Serializer[Any]):
    email = serializers.CharField(help_text="the address, as it is matched")
    expires_in = serializers.IntegerField(help_text="seconds the code is good for")
    resend_after = serializers.IntegerField(
        help_text="seconds before another code may be asked for this address"
    )


# The forms of a proof, each a set of fields sent together (`nonce` optional).
PROOF_FORMS = (("email", "code"), ("email", "password"), ("provider", "id_token", "nonce"))


class ProofIn(StrictSerializer):
    """One proof: `email` and `code`; `email` and `password`; or `provider` and
    `id_token` (with `nonce` if the app gave the provider one)."""

    email = EmailField(max_length=320, required=False)
    code = CodeField(max_length=32, required=False)
    password = _password_field(required=False)
    provider = serializers.ChoiceField(choices=list(id_tokens.PROVIDERS), required=False)
    id_token = IdTokenField(min_length=1, max_length=MAX_ID_TOKEN_LENGTH, required=False)
    nonce = NonceField(min_length=1, max_length=MAX_NONCE_LENGTH, required=False)

    # The forms taken here; an empty body is a proof of nothing, which deleting a
    # guest's account takes.
    forms: tuple[tuple[str, ...], ...] = PROOF_FORMS
    proof_required = True
    # For the schema (`unoservice.schema.AutoSchema`): a body must be sent.
    body_required = True

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given = set(attrs) & {"email", "code", "password", "provider", "id_token", "nonce"}
        forms = [set(form) for form in self.forms]
        forms += [form - {"nonce"} for form in forms if "nonce" in form]
        if not given and not self.proof_required:
            attrs["proof"] = None
            return attrs
        if given not in forms:
            raise serializers.ValidationError(
                "send one proof: "
                + ", or ".join(" and ".join(f for f in form if f != "nonce") for form in self.forms)
                + " (with nonce if the app gave the provider one)"
            )
        attrs["proof"] = Proof(
            email=attrs.get("email", ""),
            code=attrs.get("code", ""),
            password=attrs.get("password", ""),
            provider=attrs.get("provider", ""),
            id_token=attrs.get("id_token", ""),
            nonce=attrs.get("nonce"),
        )
        return attrs


class SignInIn(ProofIn):
    device = DeviceNameField(
        max_length=200, required=False, allow_blank=True, trim_whitespace=False
    )


class PasswordIn(ProofIn):
    new_password = _password_field()


class AccountDeleteIn(ProofIn):
    proof_required = False
    body_required = False


class LinkIn(ProofIn):
    # A password proves nothing of an address not linked yet.
    forms = (("email", "code"), ("provider", "id_token", "nonce"))


class ProviderOut(serializers.Serializer[Any]):
    id = serializers.ChoiceField(choices=list(id_tokens.PROVIDERS))
    name = serializers.CharField()
    client_ids = serializers.ListField(
        child=serializers.CharField(), help_text="the client ids an ID token may be issued to"
    )
    authorize_url = serializers.URLField(
        help_text="where a web page sends the person to sign in with the provider "
        "(OpenID Connect's authorization endpoint)"
    )


class SignInMethodsOut(serializers.Serializer[Any]):
    email_code = serializers.BooleanField(help_text="always true: a code mailed to the address")
    password = serializers.BooleanField(help_text="always true: an email's password, once set")
    providers = ProviderOut(many=True, help_text="the providers this service has client ids for")


class ProofScheme(OpenApiSerializerExtension):
    """A proof's body in the schema: one of its forms (`PROOF_FORMS`), each object
    with the fields the endpoint takes besides (a device's name, a new password),
    and, where no proof is needed, an empty object."""

    target_class = "players.accounts.serializers.ProofIn"
    match_subclasses = True
    priority = 1

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        whole = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction != "request":
            return dict(whole)
        properties = whole["properties"]
        proof_fields = {field for form in PROOF_FORMS for field in form}
        others = [name for name in properties if name not in proof_fields]
        required_others = [name for name in whole.get("required", []) if name in others]
        forms = []
        for form in self.target.forms:
            fields = [*form, *others]
            forms.append(
                {
                    "type": "object",
                    "properties": {name: properties[name] for name in fields},
                    "required": [name for name in form if name != "nonce"] + required_others,
                    "additionalProperties": False,
                }
            )
        if not self.target.proof_required:
            forms.append({"type": "object", "properties": {}, "additionalProperties": False})
        return {"oneOf": forms}
