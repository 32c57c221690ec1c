//! The hashes and signatures time-stamp authorities use: SHA-2, RSA (PKCS #1 v1.5) and
//! ECDSA over P-256 and P-384.

use der::Encode;
use der::asn1::ObjectIdentifier;
use p256::ecdsa::signature::hazmat::PrehashVerifier;
use rsa::pkcs8::DecodePublicKey;
use sha2_10::Digest;
use x509_cert::spki::SubjectPublicKeyInfoOwned;

const SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");
const SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2");
const SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.3");
const RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const RSA_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.11");
const RSA_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.12");
const RSA_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.13");
const ECDSA_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2");
const ECDSA_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.3");
const ECDSA_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.4");
const EC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");

/// A SHA-2 hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    pub(crate) fn of(oid: &ObjectIdentifier) -> Result<Hash, String> {
        match *oid {
            SHA256 => Ok(Hash::Sha256),
            SHA384 => Ok(Hash::Sha384),
            SHA512 => Ok(Hash::Sha512),
            other => Err(format!(
                "unsupported hash algorithm {other} (SHA-256, -384 or -512)"
            )),
        }
    }

    pub(crate) fn oid(self) -> ObjectIdentifier {
        match self {
            Hash::Sha256 => SHA256,
            Hash::Sha384 => SHA384,
            Hash::Sha512 => SHA512,
        }
    }

    pub(crate) fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => sha2_10::Sha256::digest(data).to_vec(),
            Hash::Sha384 => sha2_10::Sha384::digest(data).to_vec(),
            Hash::Sha512 => sha2_10::Sha512::digest(data).to_vec(),
        }
    }
}

/// Checks `signature` over `message` by `key`, with the signature algorithm `algorithm`; a
/// CMS signer may name plain `rsaEncryption` and give the hash apart (`hash`).
pub(crate) fn verify(
    key: &SubjectPublicKeyInfoOwned,
    algorithm: &ObjectIdentifier,
    hash: Option<Hash>,
    message: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let (rsa, hash) = match *algorithm {
        RSA => (true, hash.ok_or("rsaEncryption names no hash")?),
        RSA_SHA256 => (true, Hash::Sha256),
        RSA_SHA384 => (true, Hash::Sha384),
        RSA_SHA512 => (true, Hash::Sha512),
        ECDSA_SHA256 => (false, Hash::Sha256),
        ECDSA_SHA384 => (false, Hash::Sha384),
        ECDSA_SHA512 => (false, Hash::Sha512),
        other => return Err(format!("unsupported signature algorithm {other}")),
    };
    let digest = hash.digest(message);
    let key_der = key.to_der().map_err(|e| e.to_string())?;
    if rsa {
        let key = rsa::RsaPublicKey::from_public_key_der(&key_der)
            .map_err(|e| format!("not an RSA key: {e}"))?;
        let scheme = match hash {
            Hash::Sha256 => rsa::Pkcs1v15Sign::new::<sha2_10::Sha256>(),
            Hash::Sha384 => rsa::Pkcs1v15Sign::new::<sha2_10::Sha384>(),
            Hash::Sha512 => rsa::Pkcs1v15Sign::new::<sha2_10::Sha512>(),
        };
        return key
            .verify(scheme, &digest, signature)
            .map_err(|_| "wrong signature".to_string());
    }
    if key.algorithm.oid != EC_KEY {
        return Err("an ECDSA signature by a key that is not an EC key".into());
    }
    if let Ok(key) = p256::ecdsa::VerifyingKey::from_public_key_der(&key_der) {
        let sig = p256::ecdsa::Signature::from_der(signature).map_err(|e| e.to_string())?;
        return key
            .verify_prehash(&digest, &sig)
            .map_err(|_| "wrong signature".to_string());
    }
    if let Ok(key) = p384::ecdsa::VerifyingKey::from_public_key_der(&key_der) {
        let sig = p384::ecdsa::Signature::from_der(signature).map_err(|e| e.to_string())?;
        return key
            .verify_prehash(&digest, &sig)
            .map_err(|_| "wrong signature".to_string());
    }
    Err("an EC key on a curve other than P-256 and P-384".into())
}
