//! Access tokens for the servers codeact starts on loopback (`codeact mcp --http`,
//! `codeact studio`): 32 random bytes from the OS as hex, and a comparison whose
//! time does not depend on where two tokens differ. Not where a token travels (a
//! header, a path): each server's own.

use std::io::Read as _;

/// A token of 32 random bytes, as 64 hex digits.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `given` is `token`, in time that depends only on their lengths.
pub fn same_token(given: &str, token: &str) -> bool {
    let (a, b) = (given.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_random_and_compared_whole() {
        let (a, b) = (super::new_token().unwrap(), super::new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(super::same_token(&a, &a));
        assert!(!super::same_token(&a[1..], &a));
        assert!(!super::same_token(&b, &a));
    }
}
