print("trendy-server")
