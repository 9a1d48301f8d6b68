pub mod e2e;
pub mod fakes;
pub mod spawn;
