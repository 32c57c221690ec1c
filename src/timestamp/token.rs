//! Checking an RFC 3161 time-stamp response offline: the token (CMS signed data) is over
//! the bytes given, its signature holds under its signer's certificate, that certificate is
//! for time-stamping, was valid at the stamped time and leads to one of the anchors.

use cms::cert::CertificateChoices;
use cms::content_info::{CmsVersion, ContentInfo};
use cms::signed_data::{EncapsulatedContentInfo, SignerIdentifier, SignerInfo, SignerInfos};
use der::asn1::{Any, GeneralizedTime, ObjectIdentifier, OctetString};
use der::{Decode, Encode, Sequence};
use x509_cert::Certificate;
use x509_cert::ext::pkix::ExtendedKeyUsage;
use x509_cert::spki::SubjectPublicKeyInfoOwned;
use x509_tsp::{TimeStampResp, TstInfo};

use super::digest::{self, Hash};

const SIGNED_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.2");
const TST_INFO: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.1.4");
const CONTENT_TYPE: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.3");
const MESSAGE_DIGEST: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.4");
const TIME_STAMPING: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.8");

/// What a token says, once checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// The authority: its name in the token, else its certificate's subject.
    pub authority: String,
    /// The stamped time, UTC (`2026-12-06T22:51:32Z`).
    pub time: String,
    /// Whether the authority's certificate was led to an anchor (none given: not checked).
    pub anchored: bool,
}

/// Trusted root (or authority) certificates a token's signer must lead to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Anchors(Vec<Certificate>);

impl Anchors {
    /// The certificates of a PEM file (one or more) or a DER file.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Anchors, String> {
        let certs = if bytes.starts_with(b"-----BEGIN") {
            Certificate::load_pem_chain(bytes).map_err(|e| format!("not a PEM certificate: {e}"))?
        } else {
            vec![Certificate::from_der(bytes).map_err(|e| format!("not a DER certificate: {e}"))?]
        };
        if certs.is_empty() {
            return Err("no certificate in the file".into());
        }
        Ok(Anchors(certs))
    }

    /// These anchors and `other`'s.
    pub(crate) fn extend(&mut self, other: Anchors) {
        self.0.extend(other.0);
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// CMS signed data (RFC 5652 5.1) as `cms::signed_data::SignedData`, but for its
/// certificates, read as they come: an authority set up with its own certificate among the
/// extra ones (`certs` in OpenSSL's TSA configuration) sends it twice, which a strict SET OF
/// refuses, and which `openssl ts -verify` accepts. The certificates are not signed; the
/// signer's is found among them by its identifier either way.
#[derive(Clone, Debug, Sequence)]
struct SignedData {
    version: CmsVersion,
    digest_algorithms: Any,
    encap_content_info: EncapsulatedContentInfo,
    #[asn1(
        context_specific = "0",
        tag_mode = "IMPLICIT",
        constructed = "true",
        optional = "true"
    )]
    certificates: Option<Vec<CertificateChoices>>,
    #[asn1(
        context_specific = "1",
        tag_mode = "IMPLICIT",
        constructed = "true",
        optional = "true"
    )]
    crls: Option<Vec<Any>>,
    signer_infos: SignerInfos,
}

/// A response's token, decoded.
struct Token {
    info: TstInfo,
    /// The TSTInfo's DER, which the signed attributes' message digest is over.
    info_der: Vec<u8>,
    signed: SignedData,
}

/// Checks the time-stamp response `response` over `data`. `nonce`, when given, must be the
/// token's; `anchors` empty leaves the certificate's chain unchecked (`Stamp::anchored`).
pub(crate) fn check(
    response: &[u8],
    data: &[u8],
    nonce: Option<&[u8]>,
    anchors: &Anchors,
) -> Result<Stamp, String> {
    let token = decode(response)?;
    let info = &token.info;
    let imprint = &info.message_imprint;
    let hash = Hash::of(&imprint.hash_algorithm.oid)?;
    if imprint.hashed_message.as_bytes() != hash.digest(data) {
        return Err("the token is over other bytes: it does not stamp this signature file (a token of another release, or a changed signature)".into());
    }
    if let Some(nonce) = nonce {
        let theirs = info.nonce.as_ref().map(|n| n.as_bytes());
        if theirs != Some(nonce) {
            return Err("the token's nonce is not the one asked for (a replayed answer)".into());
        }
    }
    let signer = signer_info(&token.signed)?;
    let certs = certificates(&token.signed);
    let cert = find_signer(&signer.sid, &certs, anchors)
        .ok_or("the token carries no certificate of its signer (ask with certReq, or give the authority's certificate with --tsa-cert)")?;
    check_signer_info(
        signer,
        &token.info_der,
        &cert.tbs_certificate.subject_public_key_info,
    )?;
    let time = info.gen_time;
    let unix = time.to_unix_duration().as_secs();
    check_time_stamping(cert)?;
    valid_at(cert, unix)?;
    let anchored = !anchors.is_empty();
    if anchored {
        chain_to_anchor(cert, &certs, anchors, unix)?;
    }
    let authority = match &info.tsa {
        Some(x509_cert::ext::pkix::name::GeneralName::DirectoryName(name)) => name.to_string(),
        _ => cert.tbs_certificate.subject.to_string(),
    };
    Ok(Stamp {
        authority,
        time: utc(time),
        anchored,
    })
}

fn utc(time: GeneralizedTime) -> String {
    let dt = time.to_date_time();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minutes(),
        dt.seconds()
    )
}

fn decode(response: &[u8]) -> Result<Token, String> {
    let resp = TimeStampResp::from_der(response)
        .map_err(|e| format!("not an RFC 3161 time-stamp response: {e}"))?;
    let status = resp.status.status as u8;
    // granted (0) or grantedWithMods (1)
    if status > 1 {
        let text = resp
            .status
            .status_string
            .as_ref()
            .and_then(|s| s.iter().next().map(|t| t.to_string()))
            .unwrap_or_default();
        return Err(
            format!("the authority refused the request (status {status}) {text}")
                .trim()
                .to_string(),
        );
    }
    let token: ContentInfo = resp.time_stamp_token.ok_or("the response holds no token")?;
    if token.content_type != SIGNED_DATA {
        return Err("the token is not CMS signed data".into());
    }
    let signed: SignedData = token
        .content
        .decode_as()
        .map_err(|e| format!("the token's signed data cannot be read: {e}"))?;
    let encap = &signed.encap_content_info;
    if encap.econtent_type != TST_INFO {
        return Err("the token's content is not a TSTInfo".into());
    }
    let content = encap
        .econtent
        .as_ref()
        .ok_or("the token's content is missing")?;
    let octets: OctetString = content
        .decode_as()
        .map_err(|e| format!("the token's content cannot be read: {e}"))?;
    let info_der = octets.as_bytes().to_vec();
    let info = TstInfo::from_der(&info_der)
        .map_err(|e| format!("the token's TSTInfo cannot be read: {e}"))?;
    Ok(Token {
        info,
        info_der,
        signed,
    })
}

fn signer_info(signed: &SignedData) -> Result<&SignerInfo, String> {
    let mut infos = signed.signer_infos.0.iter();
    match (infos.next(), infos.next()) {
        (Some(one), None) => Ok(one),
        _ => Err("a token must have exactly one signer".into()),
    }
}

fn certificates(signed: &SignedData) -> Vec<&Certificate> {
    signed
        .certificates
        .iter()
        .flatten()
        .filter_map(|c| match c {
            CertificateChoices::Certificate(cert) => Some(cert),
            _ => None,
        })
        .collect()
}

fn find_signer<'a>(
    sid: &SignerIdentifier,
    certs: &[&'a Certificate],
    anchors: &'a Anchors,
) -> Option<&'a Certificate> {
    let matches = |cert: &Certificate| match sid {
        SignerIdentifier::IssuerAndSerialNumber(id) => {
            cert.tbs_certificate.issuer == id.issuer
                && cert.tbs_certificate.serial_number == id.serial_number
        }
        SignerIdentifier::SubjectKeyIdentifier(ski) => cert
            .tbs_certificate
            .get::<x509_cert::ext::pkix::SubjectKeyIdentifier>()
            .ok()
            .flatten()
            .is_some_and(|(_, own)| own == *ski),
    };
    certs
        .iter()
        .copied()
        .find(|c| matches(c))
        .or_else(|| anchors.0.iter().find(|c| matches(c)))
}

/// The signed attributes name a TSTInfo and its digest, and the signature is over them.
fn check_signer_info(
    signer: &SignerInfo,
    info_der: &[u8],
    key: &SubjectPublicKeyInfoOwned,
) -> Result<(), String> {
    let hash = Hash::of(&signer.digest_alg.oid)?;
    let attrs = signer
        .signed_attrs
        .as_ref()
        .ok_or("the token's signer has no signed attributes")?;
    let value = |oid: ObjectIdentifier| {
        attrs
            .iter()
            .find(|a| a.oid == oid)
            .and_then(|a| a.values.iter().next())
    };
    let content_type = value(CONTENT_TYPE)
        .and_then(|v| v.decode_as::<ObjectIdentifier>().ok())
        .ok_or("the token's signer names no content type")?;
    if content_type != TST_INFO {
        return Err("the token's signer signed another kind of content".into());
    }
    let digest = value(MESSAGE_DIGEST)
        .and_then(|v| v.decode_as::<OctetString>().ok())
        .ok_or("the token's signer gives no message digest")?;
    if digest.as_bytes() != hash.digest(info_der) {
        return Err("the token's TSTInfo is not what its authority signed (changed)".into());
    }
    let signed = attrs
        .to_der()
        .map_err(|e| format!("the signed attributes cannot be encoded: {e}"))?;
    digest::verify(
        key,
        &signer.signature_algorithm.oid,
        Some(hash),
        &signed,
        signer.signature.as_bytes(),
    )
    .map_err(|e| format!("the token's signature does not hold: {e}"))
}

fn check_time_stamping(cert: &Certificate) -> Result<(), String> {
    let eku = cert
        .tbs_certificate
        .get::<ExtendedKeyUsage>()
        .map_err(|e| format!("the authority's certificate cannot be read: {e}"))?;
    match eku {
        Some((_, usages)) if usages.0.contains(&TIME_STAMPING) => Ok(()),
        _ => Err("the signer's certificate is not for time-stamping (no timeStamping extended key usage)".into()),
    }
}

fn valid_at(cert: &Certificate, unix: u64) -> Result<(), String> {
    let validity = &cert.tbs_certificate.validity;
    let from = validity.not_before.to_unix_duration().as_secs();
    let until = validity.not_after.to_unix_duration().as_secs();
    if unix < from || unix > until {
        return Err(format!(
            "the certificate of {} was not valid at the stamped time",
            cert.tbs_certificate.subject
        ));
    }
    Ok(())
}

/// Leads `cert` through the token's certificates to an anchor, each signed by the next and
/// valid at the stamped time.
fn chain_to_anchor(
    cert: &Certificate,
    certs: &[&Certificate],
    anchors: &Anchors,
    unix: u64,
) -> Result<(), String> {
    let mut current = cert;
    for _ in 0..8 {
        if anchors.0.iter().any(|a| a == current) {
            return Ok(());
        }
        let issuer = &current.tbs_certificate.issuer;
        if let Some(anchor) = anchors
            .0
            .iter()
            .find(|a| &a.tbs_certificate.subject == issuer && signed_by(current, a))
        {
            return valid_at(anchor, unix);
        }
        let next = certs
            .iter()
            .copied()
            .find(|c| *c != current && &c.tbs_certificate.subject == issuer && signed_by(current, c))
            .ok_or_else(|| {
                format!(
                    "the authority's certificate ({}) does not lead to any anchor given (--tsa-cert or [signing] tsa_certs)",
                    cert.tbs_certificate.subject
                )
            })?;
        valid_at(next, unix)?;
        current = next;
    }
    Err("the authority's certificate chain is too long".into())
}

fn signed_by(cert: &Certificate, issuer: &Certificate) -> bool {
    let Ok(tbs) = cert.tbs_certificate.to_der() else {
        return false;
    };
    let Some(signature) = cert.signature.as_bytes() else {
        return false;
    };
    digest::verify(
        &issuer.tbs_certificate.subject_public_key_info,
        &cert.signature_algorithm.oid,
        None,
        &tbs,
        signature,
    )
    .is_ok()
}
