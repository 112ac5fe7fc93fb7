"""services.judging"""
