use super::*;

#[test]
fn credentials_are_given_once_per_request_and_only_to_their_origin() {
    let auth = Auth::default();
    assert_eq!(auth.answer("1", "http://a"), AuthAnswer::Cancel);
    auth.set(Some(HttpCredentials {
        username: "u".into(),
        password: "p".into(),
        origin: Some("http://a".into()),
    }));
    let given = AuthAnswer::Provide {
        username: "u".into(),
        password: "p".into(),
    };
    assert_eq!(auth.answer("1", "http://a"), given);
    // Asked again: the credentials were wrong.
    assert_eq!(auth.answer("1", "http://a"), AuthAnswer::Cancel);
    assert_eq!(auth.answer("2", "http://b"), AuthAnswer::Cancel);
    auth.set(None);
    assert_eq!(auth.answer("3", "http://a"), AuthAnswer::Cancel);
}
