//! HTTP credentials over the DevTools protocol: each `Fetch.authRequired`
//! a page's reader (`readers.rs`) hands over is answered as the page's
//! `Auth` (`credentials.rs`; `emulate.rs` sets it) says, by
//! `Fetch.continueWithAuth`. Apart from `emulate.rs` so that the readers
//! need no file that needs them.

use super::connection::Connection;
use super::protocol::{AuthChallengeResponse, AuthRequired, ContinueWithAuth, SessionId};
use crate::credentials::AuthAnswer;

/// Answers a challenge (`Fetch.continueWithAuth`); a request gone
/// meanwhile has nothing to answer.
pub(crate) async fn continue_with_auth(
    connection: &Connection,
    session: &SessionId,
    challenge: AuthRequired,
    answer: AuthAnswer,
) {
    let response = match &answer {
        AuthAnswer::Cancel => AuthChallengeResponse {
            response: "CancelAuth",
            username: None,
            password: None,
        },
        AuthAnswer::Provide { username, password } => AuthChallengeResponse {
            response: "ProvideCredentials",
            username: Some(username),
            password: Some(password),
        },
    };
    let go_on = ContinueWithAuth {
        request_id: &challenge.request_id,
        auth_challenge_response: response,
    };
    let _ = connection.send(Some(session), &go_on).await;
}
