//! Trusted timestamps (RFC 3161) over a signed release's signature file: asking an
//! authority for one (`build --sign --tsa URL`) and checking one offline (`verify`).
//!
//! The signature proves who published a release; a token from an independent time-stamp
//! authority proves that the signature, and so the manifest and every file it lists,
//! existed no later than the time the authority signed. Each token is kept as the whole
//! response the authority gave (`manifest.json.minisig.<n>.tsr`), so that
//! `openssl ts -verify -in manifest.json.minisig.1.tsr -data manifest.json.minisig -CAfile
//! root.pem` checks it with no other tool.

mod digest;
mod token;

use std::time::Duration;

use der::Encode;
use der::asn1::{Any, Int, OctetString};
use x509_cert::spki::AlgorithmIdentifier;
use x509_tsp::{MessageImprint, TimeStampReq, TspVersion};

pub(crate) use token::Anchors;
pub use token::Stamp;

/// The hash a request asks the authority to sign.
const HASH: digest::Hash = digest::Hash::Sha256;

/// The largest answer read from an authority.
const RESPONSE_LIMIT: u64 = 1 << 20;

/// The file of the `n`th (1-based) token over `signature_file`.
pub(crate) fn token_file(signature_file: &str, n: usize) -> String {
    format!("{signature_file}.{n}.tsr")
}

/// Whether `path` names a token file over `signature_file`.
pub(crate) fn is_token_file(signature_file: &str, path: &str) -> bool {
    path.strip_prefix(signature_file)
        .and_then(|rest| rest.strip_prefix('.'))
        .and_then(|rest| rest.strip_suffix(".tsr"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Asks the authority at `url` to stamp `data` (SHA-256, a fresh nonce, its certificates
/// asked for). Returns its response, checked: granted, over `data`, with our nonce, and
/// signed by the certificate it names (whose chain `verify` checks against anchors).
pub(crate) fn request(url: &str, data: &[u8]) -> Result<(Vec<u8>, Stamp), String> {
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).map_err(|e| format!("no randomness for a nonce: {e}"))?;
    // Positive, with no leading zero byte: the DER of the INTEGER is these very bytes.
    nonce[0] = (nonce[0] & 0x7f) | 0x40;
    let encode = |e: der::Error| format!("the request cannot be encoded: {e}");
    let request = TimeStampReq {
        version: TspVersion::V1,
        message_imprint: MessageImprint {
            hash_algorithm: AlgorithmIdentifier {
                oid: HASH.oid(),
                parameters: Some(Any::null()),
            },
            hashed_message: OctetString::new(HASH.digest(data)).map_err(encode)?,
        },
        req_policy: None,
        nonce: Some(Int::new(&nonce).map_err(encode)?),
        cert_req: true,
        extensions: None,
    };
    let body = request.to_der().map_err(encode)?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(15)))
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .user_agent(concat!("casebook/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent
        .post(url)
        .header("Content-Type", "application/timestamp-query")
        .send(&body[..])
        .map_err(|e| format!("cannot reach the time-stamp authority: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("the time-stamp authority answered {status}"));
    }
    let bytes = response
        .body_mut()
        .with_config()
        .limit(RESPONSE_LIMIT)
        .read_to_vec()
        .map_err(|e| format!("cannot read the authority's answer: {e}"))?;
    let stamp = token::check(&bytes, data, Some(&nonce), &Anchors::default())
        .map_err(|e| format!("a bad token: {e}"))?;
    Ok((bytes, stamp))
}

/// Checks a kept token over `data` offline; see `token::check`.
pub(crate) fn check(response: &[u8], data: &[u8], anchors: &Anchors) -> Result<Stamp, String> {
    token::check(response, data, None, anchors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_files_are_numbered_beside_the_signature() {
        let sig = "manifest.json.minisig";
        assert_eq!(token_file(sig, 2), "manifest.json.minisig.2.tsr");
        assert!(is_token_file(sig, "manifest.json.minisig.1.tsr"));
        assert!(is_token_file(sig, "manifest.json.minisig.12.tsr"));
        for other in [
            "manifest.json.minisig",
            "manifest.json.minisig..tsr",
            "manifest.json.minisig.a.tsr",
            "manifest.json.minisig.1.tsr.bak",
            "x/manifest.json.minisig.1.tsr",
        ] {
            assert!(!is_token_file(sig, other), "{other}");
        }
    }

    fn fixture(name: &str) -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tsa");
        std::fs::read(dir.join(name)).unwrap()
    }

    /// A token made by `openssl ts -reply`: an ECDSA P-256 authority whose certificate an
    /// intermediate (P-384, ecdsa-with-SHA384) issued, which the token carries, under a P-256
    /// root. Certificates are checked at the stamped time, so the fixture does not expire.
    #[test]
    fn an_ecdsa_token_through_an_intermediate_leads_to_its_root() {
        let (token, data) = (
            fixture("ec-intermediate.tsr"),
            fixture("ec-intermediate.data"),
        );
        let root = Anchors::parse(&fixture("ec-root.pem")).unwrap();
        let stamp = check(&token, &data, &root).unwrap();
        assert_eq!(stamp.authority, "CN=EC TSA");
        assert!(stamp.anchored && stamp.time.starts_with("20") && stamp.time.ends_with('Z'));
        let unanchored = check(&token, &data, &Anchors::default()).unwrap();
        assert!(!unanchored.anchored);
        let err = check(&token, b"other bytes", &root).unwrap_err();
        assert!(err.contains("over other bytes"), "{err}");
        // The intermediate as the only anchor is enough; another root of the same name is
        // not (its key did not sign the intermediate).
        let intermediate = Anchors::parse(&fixture("ec-intermediate.pem")).unwrap();
        assert!(check(&token, &data, &intermediate).is_ok());
        let impostor = Anchors::parse(&fixture("other-root.pem")).unwrap();
        let err = check(&token, &data, &impostor).unwrap_err();
        assert!(err.contains("does not lead to any anchor"), "{err}");
    }

    #[test]
    fn garbage_is_not_a_token() {
        let err = check(b"not DER", b"data", &Anchors::default()).unwrap_err();
        assert!(err.contains("not an RFC 3161"), "{err}");
    }
}
