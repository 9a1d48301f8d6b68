//! `mcp_views`: the gateway's views (issue 16).

macro_rules! impl_view_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use $crate::error::StoreError;
            use $crate::model::StoredView;
            use switchboard_core::{OwnerId, ViewSpec};

            #[async_trait::async_trait]
            impl $crate::store::ViewStore for $store {
                async fn create_view(
                    &self,
                    _owner: &OwnerId,
                    _spec: &ViewSpec,
                ) -> Result<StoredView, StoreError> {
                    unimplemented!("issue 16 skeleton")
                }
                async fn view(&self, _owner: &OwnerId, _id: &str) -> Result<StoredView, StoreError> {
                    unimplemented!("issue 16 skeleton")
                }
                async fn view_by_name(
                    &self,
                    _owner: &OwnerId,
                    _name: &str,
                ) -> Result<StoredView, StoreError> {
                    unimplemented!("issue 16 skeleton")
                }
                async fn views(&self, _owner: &OwnerId) -> Result<Vec<StoredView>, StoreError> {
                    unimplemented!("issue 16 skeleton")
                }
                async fn update_view(
                    &self,
                    _owner: &OwnerId,
                    _id: &str,
                    _spec: &ViewSpec,
                ) -> Result<StoredView, StoreError> {
                    unimplemented!("issue 16 skeleton")
                }
                async fn delete_view(&self, _owner: &OwnerId, _id: &str) -> Result<(), StoreError> {
                    unimplemented!("issue 16 skeleton")
                }
            }
        };
    };
}

pub(crate) use impl_view_store;
