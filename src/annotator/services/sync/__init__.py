"""services.sync"""
