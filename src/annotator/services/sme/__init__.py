"""services.sme"""
